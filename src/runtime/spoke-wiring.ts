import type { Logger } from 'pino';
import type { Metrics } from '../common/metrics.js';
import { DEFAULT_KUBE_TIMEOUT_MS } from '../kube/kube-client.js';
import { SpokeClusters } from '../kube/spoke-clusters.js';

/** The remote clusters of Flux objects with spec.kubeConfig (CLUSTER_KUBECONFIG_DIR, else Flux's Secrets or generic workload identity with CLUSTER_TOKEN_DIR), as configured. */
export function buildSpokes(
  config: { clusterKubeconfigDir?: string | undefined; clusterTokenDir?: string | undefined; resyncIntervalMs: number },
  o: { metrics: Metrics; log: Logger; now: () => number },
): SpokeClusters {
  return new SpokeClusters({
    dir: config.clusterKubeconfigDir,
    tokenDir: config.clusterTokenDir,
    timeoutMs: DEFAULT_KUBE_TIMEOUT_MS,
    passIntervalMs: config.resyncIntervalMs,
    metrics: o.metrics,
    log: o.log.child({ component: 'clusters' }),
    now: o.now,
  });
}
