/**
 * The core/v1 reads behind image credentials and running digests: one Secret, one ServiceAccount,
 * the Pods of a selector; and one Service, for a preview's route. Only called for opted-in workloads, only for the names they give.
 */
import type { ConfigurationOptions, CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { KubeError } from '../common/errors.js';
import { selectorString, type LabelSelector } from './label-selector.js';
import type { K8sObject, PodView, SecretView } from './kube-types.js';

/** Runs one request with its own timeout; failures become KubeError (see client.ts). */
export type KubeCall = <T>(what: string, fn: (options: ConfigurationOptions) => Promise<T>) => Promise<T>;

/** Pods asked for per list page. */
const POD_PAGE_SIZE = 500;
/** Bound on pod pages per list (500 × 20 = 10k pods for one workload). */
const MAX_POD_PAGES = 20;

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

/** A Service as the route discovery needs it: its name, namespace and `spec.selector`; null when missing. */
export async function readService(api: CoreV1Api, call: KubeCall, namespace: string, name: string): Promise<K8sObject | null> {
  const s = await orNull(call(`GET services ${namespace}/${name}`, (o) => api.readNamespacedService({ namespace, name }, o)));
  if (s === null) return null;
  const selector = s.spec?.selector;
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: selector ? { selector: { ...selector } } : {} };
}

/** The KubeReader methods over CoreV1Api. */
export function coreReads(api: CoreV1Api, call: KubeCall) {
  return {
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
      const out: PodView[] = [];
      let cont: string | undefined;
      for (let page = 0; page < MAX_POD_PAGES; page++) {
        const list = await call(what, (o) => api.listNamespacedPod({ namespace, labelSelector, limit: POD_PAGE_SIZE, _continue: cont }, o));
        for (const p of list.items) {
          const v = podView(p);
          if (v !== undefined) out.push(v);
        }
        cont = list.metadata?._continue || undefined;
        if (!cont) return out;
      }
      throw new KubeError(`Kubernetes API: ${what} did not finish within ${MAX_POD_PAGES} pages`);
    },
  };
}
