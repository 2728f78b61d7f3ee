import type { Logger } from 'pino';
import { loadKubeConfig, type KubeReaderOptions } from '../kube/kube-client.js';
import { WorkloadWatches, type WorkloadWatchEvents } from '../kube/rollout-watch.js';
import { createWatchTransport, type WatchTransport } from '../kube/watch-stream.js';
import type { QueueStore } from '../store/queue-store.js';
import { RolloutTracking } from './rollout-tracking.js';
import { queueWakes } from './rollout-wakes.js';

/**
 * Builds the rollout tracking over watches of the cluster the reader reads (same kubeconfig), and of each
 * spoke while something rolls out there (over the spoke's own transport): a source
 * whose workload's rollout ends is queued at once and the worker woken (`notify`).
 */
export function buildRolloutTracking(o: {
  kube: Pick<KubeReaderOptions, 'kubeconfigPath' | 'inCluster'>;
  queue: Pick<QueueStore, 'enqueue' | 'schedule'>;
  notify: () => void;
  log: Logger;
  now: () => number;
}): { tracking: RolloutTracking; stop: () => void } {
  const log = o.log.child({ component: 'rollout-watch' });
  const transport = createWatchTransport(loadKubeConfig(o.kube));
  const watches: WorkloadWatches = new WorkloadWatches({
    transport,
    // The tracking hears what the watches see; it is built just below.
    events: {
      synced: (...a) => tracking.synced(...a),
      changed: (...a) => tracking.changed(...a),
      lost: (...a) => tracking.lost(...a),
    },
    log,
    now: o.now,
  });
  // A spoke's rollouts: its own watches, over its own transport (its kubeconfig's credentials only), one per
  // kind across the spoke: a fleet of spokes rolling out in many namespaces holds one connection per spoke and kind.
  const spokeWatches = (cluster: string, spoke: WatchTransport, events: WorkloadWatchEvents) =>
    new WorkloadWatches({ transport: spoke, events, log: log.child({ cluster }), now: o.now, scope: 'cluster' });
  const tracking: RolloutTracking = new RolloutTracking({ watches, spokeWatches, ...queueWakes({ ...o, log }), log });
  return {
    tracking,
    stop: () => {
      watches.stop();
      tracking.stopSpokes();
    },
  };
}
