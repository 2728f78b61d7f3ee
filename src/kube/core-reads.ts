/**
 * The core/v1 reads behind image credentials and running digests: one Secret, one ServiceAccount,
 * the Pods of a selector; and one Service, for a preview's route. Only called for opted-in workloads, only for the names they give.
 * One Namespace, only after a workload was not found: whether its namespace went with it.
 */
import { KubeError } from '../common/errors.js';
import { selectorString, type LabelSelector } from '../flux/label-selector.js';
import { MAX_LIST_PAGE_CHARS, type KubeGetJson } from './kube-request.js';
import type { K8sObject, PodView, SecretView } from './kube-types.js';

/** The fields of core/v1 objects read here, as the API server sends them (JSON: timestamps are strings). */
interface Meta {
  name?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string | null;
  labels?: Record<string, string>;
}
interface Pod {
  metadata?: Meta;
  spec?: { containers?: Array<{ name: string; image?: string }> };
  status?: { containerStatuses?: Array<{ name: string; imageID: string }> };
}
interface Service {
  metadata?: Meta;
  spec?: { selector?: Record<string, string> };
}
interface List<I> {
  items?: I[];
  metadata?: { continue?: string };
}

/** Pods or Services asked for per list page. */
const PAGE_SIZE = 500;
/** Bound on pages per list (500 × 20 = 10k pods for one workload, or Services in a namespace). */
const MAX_PAGES = 20;

async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof KubeError && err.status === 404) return null;
    throw err;
  }
}

function millis(d: string | null | undefined): number {
  const ms = d == null ? NaN : Date.parse(d);
  return Number.isFinite(ms) ? ms : 0;
}

function millisIso(d: string | null | undefined): string {
  return new Date(millis(d)).toISOString();
}

function podView(p: Pod): PodView | undefined {
  const name = p.metadata?.name;
  if (name === undefined) return undefined;
  return {
    name,
    createdAt: millis(p.metadata?.creationTimestamp),
    labels: { ...p.metadata?.labels },
    terminating: p.metadata?.deletionTimestamp != null,
    containers: (p.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '' })),
    containerStatuses: (p.status?.containerStatuses ?? []).map((s) => ({ name: s.name, imageID: s.imageID })),
  };
}

/** A Service as the route discovery needs it: kind, name, namespace and `spec.selector`. */
function serviceView(s: Service, namespace: string): K8sObject | undefined {
  const name = s.metadata?.name;
  if (name === undefined) return undefined;
  const selector = s.spec?.selector;
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: selector ? { selector: { ...selector } } : {} };
}

/** A Service, or null when it does not exist (404). */
export async function readService(getJson: KubeGetJson, namespace: string, name: string): Promise<K8sObject | null> {
  const s = await orNull(getJson(`GET services ${namespace}/${name}`, `${nsPath(namespace)}/services/${encodeURIComponent(name)}`));
  return s === null ? null : (serviceView(s as Service, namespace) ?? null);
}

/** Every Service of a namespace (paged). */
export function listServices(getJson: KubeGetJson, namespace: string): Promise<K8sObject[]> {
  return allPages(getJson, `LIST services in ${namespace}`, `${nsPath(namespace)}/services`, {}, (s) =>
    serviceView(s as Service, namespace),
  );
}

/** Every page of a core/v1 list, each item viewed (undefined: dropped), within MAX_PAGES. */
async function allPages<V>(
  getJson: KubeGetJson,
  what: string,
  path: string,
  query: Record<string, string | undefined>,
  view: (item: unknown) => V | undefined,
): Promise<V[]> {
  const out: V[] = [];
  let cont: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const list = (await getJson(
      what,
      path,
      { ...query, limit: String(PAGE_SIZE), continue: cont },
      MAX_LIST_PAGE_CHARS,
    )) as List<unknown> | null;
    if (!Array.isArray(list?.items)) throw new KubeError(`Kubernetes API: ${what} returned an unexpected body`);
    for (const item of list.items) {
      const v = view(item);
      if (v !== undefined) out.push(v);
    }
    cont = list.metadata?.continue || undefined;
    if (!cont) return out;
  }
  throw new KubeError(`Kubernetes API: ${what} did not finish within ${MAX_PAGES} pages`);
}

/** The REST path of a core/v1 namespace. */
const nsPath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}`;

/** The KubeReader methods that read core/v1 objects. */
export function coreReads(getJson: KubeGetJson) {
  /** One object of a namespace, or null when it does not exist (404). */
  const read = (resource: string, namespace: string, name: string) =>
    orNull(getJson(`GET ${resource} ${namespace}/${name}`, `${nsPath(namespace)}/${resource}/${encodeURIComponent(name)}`));
  return {
    async getNamespace(name: string): Promise<K8sObject | null> {
      const ns = (await orNull(getJson(`GET namespaces ${name}`, nsPath(name)))) as { metadata?: Meta } | null;
      if (ns === null) return null;
      const deleting = ns.metadata?.deletionTimestamp != null;
      return {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, ...(deleting ? { deletionTimestamp: millisIso(ns.metadata?.deletionTimestamp) } : {}) },
      };
    },
    async getSecret(namespace: string, name: string): Promise<SecretView | null> {
      const s = (await read('secrets', namespace, name)) as { type?: string; data?: Record<string, string> } | null;
      return s === null ? null : { type: s.type ?? 'Opaque', data: { ...s.data } };
    },
    async getConfigMap(namespace: string, name: string): Promise<Record<string, string> | null> {
      const cm = (await read('configmaps', namespace, name)) as { data?: Record<string, string> } | null;
      return cm === null ? null : { ...cm.data };
    },
    async getServiceAccountPullSecrets(namespace: string, name: string): Promise<string[] | null> {
      const sa = (await read('serviceaccounts', namespace, name)) as { imagePullSecrets?: Array<{ name?: string }> } | null;
      if (sa === null) return null;
      return (sa.imagePullSecrets ?? []).map((r) => r.name ?? '').filter((n) => n !== '');
    },
    async listPods(namespace: string, selector: LabelSelector | undefined): Promise<PodView[]> {
      const labelSelector = selector === undefined ? undefined : selectorString(selector);
      if (selector !== undefined && labelSelector === undefined) return [];
      const what = labelSelector === undefined ? `LIST pods in ${namespace}` : `LIST pods in ${namespace} (${labelSelector})`;
      return allPages(getJson, what, `${nsPath(namespace)}/pods`, { labelSelector }, (p) => podView(p as Pod));
    },
  };
}
