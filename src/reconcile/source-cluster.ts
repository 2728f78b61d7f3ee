/**
 * Which cluster a Flux object's workloads are read in: the hub's own (no `.spec.kubeConfig`), or its spoke,
 * through the spoke's reader only. A remote object's workloads run in the spoke's cluster (CLUSTER_NAME's place).
 */
import type { SpokeResolution } from '../kube/spoke-clusters.js';
import type { ClusterUnavailable } from '../kube/spoke-gate.js';
import type { K8sObject, KubeReader } from '../kube/kube-types.js';
import type { WatchTransport } from '../kube/watch-stream.js';
import type { Defaults } from '../metadata/resolve-target.js';

/**
 * A reader that follows rollouts (runtime/rollout-tracking.ts) offers this: the spoke's reader, wrapped so the
 * workloads read through it are followed by watches of that spoke over `watch` (its own transport).
 */
export type SpokeFollowing = { throughSpoke?(cluster: string, reader: KubeReader, watch: WatchTransport): KubeReader };

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
  o: { kube: KubeReader & SpokeFollowing; defaults: Defaults; spokes?: SpokeSource | undefined; viaPass?: boolean | undefined },
  obj: K8sObject,
): Promise<SourceCluster> {
  const r = o.spokes ? await o.spokes.resolve(obj, o.kube) : ({ local: true } as const);
  if ('local' in r) return { kube: o.kube, defaults: o.defaults };
  if ('unavailable' in r) return { unavailable: r.unavailable };
  const reader = o.viaPass ? r.pass : r.fresh;
  return {
    kube: o.kube.throughSpoke ? o.kube.throughSpoke(r.cluster, reader, r.watch) : reader,
    defaults: { ...o.defaults, cluster: r.cluster, spoke: r.cluster },
    remote: { cluster: r.cluster, credentials: r.credentials },
  };
}
