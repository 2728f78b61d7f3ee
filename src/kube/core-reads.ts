/**
 * The core/v1 reads behind image credentials and running digests: one Secret, one ServiceAccount,
 * the Pods of a selector; and one Service, for a preview's route. Only called for opted-in workloads, only for the names they give.
 * One Namespace, only after a workload was not found: whether its namespace went with it.
 */
import type { ConfigurationOptions, CoreV1Api, V1Pod, V1Service } from '@kubernetes/client-node';
import { KubeError } from '../common/errors.js';
import { selectorString, type LabelSelector } from './label-selector.js';
import type { K8sObject, PodView, SecretView } from './kube-types.js';

/** Runs one request with its own timeout; failures become KubeError (see client.ts). */
export type KubeCall = <T>(what: string, fn: (options: ConfigurationOptions) => Promise<T>) => Promise<T>;

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

function millis(d: Date | string | undefined): number {
  if (d === undefined) return 0;
  const ms = d instanceof Date ? d.getTime() : Date.parse(d);
  return Number.isFinite(ms) ? ms : 0;
}

function millisIso(d: Date | string | undefined): string {
  return new Date(millis(d)).toISOString();
}

function podView(p: V1Pod): PodView | undefined {
  const name = p.metadata?.name;
  if (name === undefined) return undefined;
  return {
    name,
    createdAt: millis(p.metadata?.creationTimestamp),
    labels: { ...p.metadata?.labels },
    // The client passes a JSON null through although it types the field Date | undefined.
    terminating: p.metadata?.deletionTimestamp != null,
    containers: (p.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '' })),
    containerStatuses: (p.status?.containerStatuses ?? []).map((s) => ({ name: s.name, imageID: s.imageID })),
  };
}

/** A Service as the route discovery needs it: kind, name, namespace and `spec.selector`. */
function serviceView(s: V1Service, namespace: string): K8sObject | undefined {
  const name = s.metadata?.name;
  if (name === undefined) return undefined;
  const selector = s.spec?.selector;
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: selector ? { selector: { ...selector } } : {} };
}

/** A Service, or null when it does not exist (404). */
export async function readService(api: CoreV1Api, call: KubeCall, namespace: string, name: string): Promise<K8sObject | null> {
  const s = await orNull(call(`GET services ${namespace}/${name}`, (o) => api.readNamespacedService({ namespace, name }, o)));
  return s === null ? null : (serviceView(s, namespace) ?? null);
}

/** Every Service of a namespace (paged). */
export function listServices(api: CoreV1Api, call: KubeCall, namespace: string): Promise<K8sObject[]> {
  return allPages(
    `LIST services in ${namespace}`,
    call,
    (cont) => (o) => api.listNamespacedService({ namespace, limit: PAGE_SIZE, _continue: cont }, o),
    (s) => serviceView(s, namespace),
  );
}

/** Every page of a core/v1 list, each item viewed (undefined: dropped), within MAX_PAGES. */
async function allPages<I, V>(
  what: string,
  call: KubeCall,
  page: (cont: string | undefined) => (options: ConfigurationOptions) => Promise<{ items: I[]; metadata?: { _continue?: string } }>,
  view: (item: I) => V | undefined,
): Promise<V[]> {
  const out: V[] = [];
  let cont: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const list = await call(what, page(cont));
    for (const item of list.items) {
      const v = view(item);
      if (v !== undefined) out.push(v);
    }
    cont = list.metadata?._continue || undefined;
    if (!cont) return out;
  }
  throw new KubeError(`Kubernetes API: ${what} did not finish within ${MAX_PAGES} pages`);
}

/** The KubeReader methods over CoreV1Api. */
export function coreReads(api: CoreV1Api, call: KubeCall) {
  return {
    async getNamespace(name: string): Promise<K8sObject | null> {
      const ns = await orNull(call(`GET namespaces ${name}`, (o) => api.readNamespace({ name }, o)));
      if (ns === null) return null;
      // The client passes a JSON null through although it types the field Date | undefined.
      const deleting = ns.metadata?.deletionTimestamp != null;
      return {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, ...(deleting ? { deletionTimestamp: millisIso(ns.metadata?.deletionTimestamp) } : {}) },
      };
    },
    async getSecret(namespace: string, name: string): Promise<SecretView | null> {
      const s = await orNull(call(`GET secrets ${namespace}/${name}`, (o) => api.readNamespacedSecret({ namespace, name }, o)));
      return s === null ? null : { type: s.type ?? 'Opaque', data: { ...s.data } };
    },
    async getServiceAccountPullSecrets(namespace: string, name: string): Promise<string[] | null> {
      const sa = await orNull(
        call(`GET serviceaccounts ${namespace}/${name}`, (o) => api.readNamespacedServiceAccount({ namespace, name }, o)),
      );
      if (sa === null) return null;
      return (sa.imagePullSecrets ?? []).map((r) => r.name ?? '').filter((n) => n !== '');
    },
    async listPods(namespace: string, selector: LabelSelector | undefined): Promise<PodView[]> {
      const labelSelector = selector === undefined ? undefined : selectorString(selector);
      if (selector !== undefined && labelSelector === undefined) return [];
      const what = labelSelector === undefined ? `LIST pods in ${namespace}` : `LIST pods in ${namespace} (${labelSelector})`;
      return allPages(
        what,
        call,
        (cont) => (o) => api.listNamespacedPod({ namespace, labelSelector, limit: PAGE_SIZE, _continue: cont }, o),
        podView,
      );
    },
  };
}
