/**
 * A preview's URL found by itself (pure): the Ingress or Gateway API HTTPRoute of a Flux inventory
 * whose backend Service selects the workload's pods gives the host and path. Used when the workload
 * has no `environment-url` annotation; `ENVIRONMENT_URL` stays the fallback.
 */
import type { K8sObject } from '../flux/k8s-objects.js';
import { selectorMatches } from '../flux/label-selector.js';

/** A URL discovered from a routing object, and which object gave it (for `explain` and logs). */
export interface DiscoveredUrl {
  url: string;
  /** `Ingress apps/web` or `HTTPRoute apps/web`. */
  from: string;
}

/** The scheme of HTTPRoute URLs: the route does not say whether its Gateway listener terminates TLS. */
export type RouteScheme = 'https' | 'http';

/** The workload whose traffic is looked for: its namespace and its pod template's labels. */
export interface RoutedPods {
  namespace: string;
  labels: Readonly<Record<string, string>>;
}

/** One host and path a routing object sends to a backend Service. */
interface Leg {
  host: string;
  path: string;
  service: string;
  https: boolean;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A host a URL can name: not a wildcard, not empty. */
const concreteHost = (h: string | undefined): h is string => h !== undefined && !h.includes('*');

/** Whether a TLS host entry (possibly `*.example.com`, one label deep) covers the host. */
function tlsCovers(entry: string, host: string): boolean {
  if (!entry.startsWith('*.')) return entry.toLowerCase() === host.toLowerCase();
  const dot = host.indexOf('.');
  return dot > 0 && host.slice(dot + 1).toLowerCase() === entry.slice(2).toLowerCase();
}

/** A plain path for a URL; a regular expression (or nothing) stands for the root. */
function urlPath(path: string | undefined): string {
  if (path === undefined || !path.startsWith('/') || /[()[\]*$^|?\\{}+]/.test(path)) return '/';
  return path;
}

function ingressLegs(spec: Json): Leg[] {
  const tlsHosts = arr(spec.tls).flatMap((t) => arr(obj(t).hosts).filter((h): h is string => typeof h === 'string'));
  const defaultService = str(obj(obj(spec.defaultBackend).service).name);
  const legs: Leg[] = [];
  for (const rule of arr(spec.rules).map(obj)) {
    const host = str(rule.host);
    if (!concreteHost(host)) continue;
    const https = tlsHosts.some((entry) => tlsCovers(entry, host));
    const paths = arr(obj(rule.http).paths).map(obj);
    if (paths.length === 0 && defaultService) legs.push({ host, path: '/', service: defaultService, https });
    for (const p of paths) {
      const service = str(obj(obj(p.backend).service).name);
      if (service) legs.push({ host, path: urlPath(str(p.path)), service, https });
    }
  }
  return legs;
}

function httpRouteLegs(spec: Json, namespace: string, https: boolean): Leg[] {
  const host = arr(spec.hostnames)
    .map(str)
    .find((h) => concreteHost(h));
  if (host === undefined) return [];
  const legs: Leg[] = [];
  for (const rule of arr(spec.rules).map(obj)) {
    const match = arr(rule.matches)
      .map((m) => obj(obj(m).path))
      .find((p) => p.type !== 'RegularExpression' && str(p.value));
    for (const ref of arr(rule.backendRefs).map(obj)) {
      const core = (ref.group ?? '') === '' && (ref.kind ?? 'Service') === 'Service';
      // A backend in another namespace needs a ReferenceGrant and is not this inventory's Service.
      const sameNamespace = (ref.namespace ?? namespace) === namespace;
      const service = str(ref.name);
      if (core && sameNamespace && service) legs.push({ host, path: urlPath(str(match?.value)), service, https });
    }
  }
  return legs;
}

/** Whether a Service's `spec.selector` (a plain label map) selects the pods. */
function selects(service: K8sObject, pods: RoutedPods): boolean {
  if (service.metadata.namespace !== pods.namespace) return false;
  const selector = service.spec?.selector;
  return (
    typeof selector === 'object' && selector !== null && selectorMatches({ matchLabels: selector as Record<string, string> }, pods.labels)
  );
}

/**
 * The URL of the first routing object (in inventory order) with a concrete host whose backend Service,
 * in the same inventory and namespace, selects the pods: `https://host/path` when the Ingress lists the
 * host under `tls` (HTTPRoute: `httpRouteScheme`), else `http://`. None when nothing routes to them.
 */
export function routeUrl(objects: readonly K8sObject[], pods: RoutedPods, httpRouteScheme: RouteScheme): DiscoveredUrl | undefined {
  const selecting = new Set(objects.filter((o) => o.kind === 'Service' && selects(o, pods)).map((o) => o.metadata.name));
  if (selecting.size === 0) return undefined;
  for (const o of objects) {
    const namespace = o.metadata.namespace ?? '';
    if (namespace !== pods.namespace) continue;
    const spec = obj(o.spec);
    const legs =
      o.kind === 'Ingress' ? ingressLegs(spec) : o.kind === 'HTTPRoute' ? httpRouteLegs(spec, namespace, httpRouteScheme === 'https') : [];
    const leg = legs.find((l) => selecting.has(l.service));
    if (leg) return { url: `${leg.https ? 'https' : 'http'}://${leg.host}${leg.path}`, from: `${o.kind} ${namespace}/${o.metadata.name}` };
  }
  return undefined;
}
