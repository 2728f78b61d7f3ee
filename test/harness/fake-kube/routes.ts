/** REST path parsing and the read handlers (get, list with selectors and pagination). */
import { apiVersionOf, typeByPlural, type ResourceType } from './resources.js';
import { fieldSelector, labelSelector } from './selectors.js';
import { badRequest, noSuchResource, notFound, type Status } from './status.js';
import type { KubeObject, ObjectStore } from './store.js';

/** A request path broken into its REST parts. */
export interface Route {
  group: string;
  version: string;
  plural: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** Parses /api/v1/... and /apis/{group}/{version}/...; null when the path names no resource. */
export function parsePath(pathname: string): Route | null {
  const seg = pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (seg[0] === 'api' && seg[1] === 'v1') [group, version, rest] = ['', 'v1', seg.slice(2)];
  else if (seg[0] === 'apis' && seg.length >= 3) [group, version, rest] = [seg[1]!, seg[2]!, seg.slice(3)];
  else return null;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    if (rest.length > 5) return null;
    return { group, version, namespace: rest[1]!, plural: rest[2]!, name: rest[3], subresource: rest[4] };
  }
  if (rest.length === 0 || rest.length > 3) return null;
  return { group, version, plural: rest[0]!, name: rest[1], subresource: rest[2] };
}

export interface Reply {
  status: number;
  body: unknown;
}

/** The type a route addresses, if it exists with the right scope. */
export function resolveType(route: Route): ResourceType | undefined {
  const t = typeByPlural(route.group, route.version, route.plural);
  if (!t) return undefined;
  if (!t.namespaced && route.namespace !== undefined) return undefined;
  if (t.namespaced && route.name !== undefined && route.namespace === undefined) return undefined;
  if (route.subresource !== undefined && route.subresource !== 'status') return undefined;
  return t;
}

/** GET of one object (or its status subresource, which serves the whole object). */
export function getObject(store: ObjectStore, t: ResourceType, route: Route): Reply {
  const obj = store.find(t, route.namespace, route.name!);
  if (!obj) return { status: 404, body: notFound(t.group, t.plural, route.name!) };
  return { status: 200, body: obj };
}

interface ContinueToken {
  rv: string;
  start: number;
}

function decodeContinue(token: string): ContinueToken | null {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    return typeof t.start === 'number' && typeof t.rv === 'string' ? t : null;
  } catch {
    return null;
  }
}

/** A list response shaped like the server's: <Kind>List with metadata.resourceVersion and items. */
export function listObjects(store: ObjectStore, t: ResourceType, route: Route, query: URLSearchParams): Reply {
  let byLabels: (l: Record<string, string>) => boolean;
  let byFields: (m: { name: string; namespace?: string }) => boolean;
  try {
    byLabels = labelSelector(query.get('labelSelector'));
    byFields = fieldSelector(query.get('fieldSelector'));
  } catch (err) {
    return { status: 400, body: badRequest((err as Error).message) };
  }
  const all = store.list(t, route.namespace).filter((o) => byLabels(o.metadata.labels ?? {}) && byFields(o.metadata));
  const cont = query.get('continue');
  const token = cont ? decodeContinue(cont) : { rv: store.resourceVersion, start: 0 };
  if (!token) return { status: 400, body: badRequest('continue key is not valid: invalid continue token') };
  const limit = Number(query.get('limit') ?? 0);
  const end = limit > 0 ? token.start + limit : all.length;
  const page = all.slice(token.start, end);
  const metadata: Record<string, unknown> = { resourceVersion: token.rv };
  if (end < all.length) {
    metadata.continue = Buffer.from(JSON.stringify({ rv: token.rv, start: end })).toString('base64url');
    metadata.remainingItemCount = all.length - end;
  }
  const apiVersion = apiVersionOf(t);
  const kind = `${t.kind}List`;
  // Custom resources are served as unstructured JSON (keys sorted, items keep apiVersion/kind);
  // built-in types as typed lists (kind first, items without apiVersion/kind).
  const body = t.itemsHaveKind ? { apiVersion, items: page, kind, metadata } : { kind, apiVersion, metadata, items: page.map(stripKind) };
  return { status: 200, body };
}

function stripKind(o: KubeObject): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...o };
  delete rest.apiVersion;
  delete rest.kind;
  return rest;
}

/** 404 for paths that name no known resource. */
export function unknownResource(): Reply {
  return { status: 404, body: noSuchResource() satisfies Status };
}
