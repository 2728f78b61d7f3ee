/**
 * The clusters the bridge reads, for /state, the status page and /readyz: its own (the hub, or the only cluster)
 * and each remote cluster of a Flux object with `spec.kubeConfig`: whether it answers, when it last did, why not,
 * and where its credentials come from.
 */
import type { KubeHealth } from '../health/kube-health.js';
import type { ClusterState } from '../kube/spoke-clusters.js';
import type { Section } from '../features/feature.js';

/** One cluster as /state shows it (times in ISO 8601). */
export interface ClusterView {
  name: string;
  local: boolean;
  answers: boolean | null;
  lastAnswerAt: string | null;
  reason: string | null;
  credentials: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The bridge's own cluster (CLUSTER_NAME, read with its own credentials) first, then every spoke met so far. */
export function clusterViews(local: { name: string; health: KubeHealth }, spokes: readonly ClusterState[]): ClusterView[] {
  const { lastOk, lastError } = local.health;
  return [
    {
      name: local.name,
      local: true,
      answers: lastOk === null && lastError === null ? null : lastError === null,
      lastAnswerAt: iso(lastOk),
      reason: lastError,
      credentials: "the bridge's own (KUBECONFIG or its service account)",
    },
    ...spokes.map((s) => ({ ...s, lastAnswerAt: iso(s.lastAnswerAt) })),
  ];
}

/** A line of /readyz's `degraded` per remote cluster that does not answer (never unready: the rest goes on). */
export function clusterOutages(spokes: readonly ClusterState[]): string[] {
  return spokes.filter((s) => s.answers === false).map((s) => `remote cluster ${s.name} cannot be read: ${s.reason ?? 'no answer'}`);
}

/** The bridge's own part of /state after the readiness: the clusters read, whether the database takes writes, the registry cache. */
export function bridgeSection(o: {
  clusters: () => ClusterView[];
  storage: () => unknown;
  registryCache: () => { digests: number; tags: number };
}): Section {
  return {
    state: { place: 'readiness', fields: () => ({ clusters: o.clusters(), storage: o.storage(), registryCache: o.registryCache() }) },
  };
}
