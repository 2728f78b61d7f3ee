/**
 * Which cluster a Flux object's workloads are read in: the hub's own (no `.spec.kubeConfig`), or its spoke,
 * through the spoke's reader only. A remote object's workloads run in the spoke's cluster (CLUSTER_NAME's place).
 */
import type { SpokeResolution } from '../kube/spoke-clusters.js';
import type { ClusterUnavailable } from '../kube/spoke-gate.js';
import type { K8sObject, KubeReader } from '../kube/kube-types.js';
import type { Defaults } from '../metadata/resolve-target.js';

/** The remote clusters, as the reconcile needs them (kube/spoke-clusters.ts). */
export interface SpokeSource {
  resolve(obj: K8sObject, hub: Pick<KubeReader, 'getSecret' | 'getConfigMap'>): Promise<SpokeResolution>;
}

/** Where a Flux object's workloads are read, and the defaults they resolve with. */
export type SourceCluster =
  | {
      kube: KubeReader;
      defaults: Defaults;
      /** The spoke's name and credentials; undefined for the hub's own workloads. */
      remote?: { cluster: string; credentials: string };
    }
  | { unavailable: ClusterUnavailable };

/** The reader and defaults of one Flux object's workloads (`viaPass`: the resync pass's listings). */
export async function sourceCluster(
  o: { kube: KubeReader; defaults: Defaults; spokes?: SpokeSource | undefined; viaPass?: boolean | undefined },
  obj: K8sObject,
): Promise<SourceCluster> {
  const r = o.spokes ? await o.spokes.resolve(obj, o.kube) : ({ local: true } as const);
  if ('local' in r) return { kube: o.kube, defaults: o.defaults };
  if ('unavailable' in r) return { unavailable: r.unavailable };
  return {
    kube: o.viaPass ? r.pass : r.fresh,
    defaults: { ...o.defaults, cluster: r.cluster, spoke: r.cluster },
    remote: { cluster: r.cluster, credentials: r.credentials },
  };
}
