/**
 * Builders for the core/v1 objects behind image credentials and running digests: pull Secrets,
 * ServiceAccounts, and the Pods a workload runs, shaped like what kube-apiserver serves.
 */
import type { KubeObject, KubeObjectInput } from './fake-kube/store.js';
import { kubeTime, templateHash, uidFor } from './kube-meta.js';

/** Registry key (as it would appear in a docker config) → credentials. */
export type Auths = Record<string, { username: string; password: string }>;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** A pull Secret: `kubernetes.io/dockerconfigjson` (default) or legacy `kubernetes.io/dockercfg`. */
export function pullSecret(o: { namespace: string; name: string; auths: Auths; legacy?: boolean }): KubeObject {
  const entries = Object.fromEntries(
    Object.entries(o.auths).map(([key, c]) => [
      key,
      { username: c.username, password: c.password, auth: b64(`${c.username}:${c.password}`) },
    ]),
  );
  const data = o.legacy ? { '.dockercfg': b64(JSON.stringify(entries)) } : { '.dockerconfigjson': b64(JSON.stringify({ auths: entries })) };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: o.name, namespace: o.namespace, uid: uidFor('Secret', o.namespace, o.name) },
    type: o.legacy ? 'kubernetes.io/dockercfg' : 'kubernetes.io/dockerconfigjson',
    data,
  };
}

/** A kubeconfig Secret as Cluster API writes it (`<cluster>-kubeconfig`, key `value` unless given). */
export function kubeconfigSecret(o: { namespace: string; name: string; text: string; key?: string }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: o.name, namespace: o.namespace, uid: uidFor('Secret', o.namespace, o.name) },
    type: 'cluster.x-k8s.io/secret',
    data: { [o.key ?? 'value']: b64(o.text) },
  };
}

/** A ConfigMap with `data` (Flux's workload identity: `provider`, `cluster`, `address`, …). */
export function configMap(o: { namespace: string; name: string; data: Record<string, string> }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: o.name, namespace: o.namespace, uid: uidFor('ConfigMap', o.namespace, o.name) },
    data: { ...o.data },
  };
}

/** A ServiceAccount, optionally with `imagePullSecrets`. */
export function serviceAccount(o: { namespace: string; name: string; imagePullSecrets?: string[] }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: o.name, namespace: o.namespace, uid: uidFor('ServiceAccount', o.namespace, o.name) },
    ...(o.imagePullSecrets ? { imagePullSecrets: o.imagePullSecrets.map((name) => ({ name })) } : {}),
  };
}

export interface PodsOptions {
  /** How many pods (default 1). */
  count?: number;
  /** Container name → the imageID its status reports ('' = not pulled yet). */
  imageIDs: Record<string, string>;
  /** Name suffix, so pods of several "generations" can coexist. */
  suffix?: string;
  /** creationTimestamp (default now). */
  createdAt?: Date;
  terminating?: boolean;
}

/** Running pods of a workload's current template: its labels, its containers, their imageIDs. */
export function podsFor(workload: KubeObject, o: PodsOptions): KubeObject[] {
  const template = (workload.spec?.template ?? {}) as {
    metadata?: { labels?: Record<string, string> };
    spec?: { containers?: Array<{ name: string; image: string }> };
  };
  const hash = templateHash(template);
  const namespace = workload.metadata.namespace ?? 'default';
  const containers = template.spec?.containers ?? [];
  const out: KubeObject[] = [];
  for (let i = 0; i < (o.count ?? 1); i++) {
    const name = `${workload.metadata.name}-${hash}-${o.suffix ?? 'p'}${i}`;
    const pod: KubeObjectInput & KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        uid: uidFor('Pod', namespace, name),
        labels: { ...template.metadata?.labels, 'pod-template-hash': hash },
        creationTimestamp: kubeTime(o.createdAt),
        ...(o.terminating ? { deletionTimestamp: kubeTime() } : {}),
      },
      spec: structuredClone(template.spec ?? {}),
      status: {
        phase: 'Running',
        containerStatuses: containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: o.imageIDs[c.name] ?? '',
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: kubeTime(o.createdAt) } },
        })),
      },
    };
    out.push(pod);
  }
  return out;
}
