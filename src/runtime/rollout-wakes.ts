import type { Logger } from 'pino';
import { errorMessage } from '../common/errors.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import { recheckDelay } from '../lifecycle/recheck-delay.js';
import type { QueueStore } from '../store/queue-store.js';
import type { RolloutTrackingOptions } from './rollout-tracking.js';

const sourceKey = (r: SourceRef) => `${r.kind}/${r.namespace}/${r.name}`;

/**
 * The tracking's two ways into the queue. `wake` makes sources due now (a row being reconciled is marked
 * to run once more; `enqueue` alone would leave a pending re-check's later due time); `fallBack` makes them
 * due after the first re-check delay, where the re-check schedule takes over. A write that fails is logged:
 * the re-check already scheduled still comes.
 */
export function queueWakes(o: {
  queue: Pick<QueueStore, 'enqueue' | 'schedule'>;
  notify: () => void;
  now: () => number;
  log: Logger;
}): Pick<RolloutTrackingOptions, 'wake' | 'fallBack'> {
  const write = (refs: SourceRef[], at: (now: number) => number, markActive: boolean) => {
    const now = o.now();
    try {
      for (const ref of refs) {
        if (markActive) o.queue.enqueue(ref, now);
        o.queue.schedule(ref, at(now));
      }
    } catch (err) {
      o.log.warn({ err: errorMessage(err), fluxObjects: refs.map(sourceKey) }, 'could not queue Flux objects whose rollout changed');
      return;
    }
    o.notify();
  };
  return {
    wake: (refs) => write(refs, (now) => now, true),
    fallBack: (refs) => write(refs, (now) => now + recheckDelay(0), false),
  };
}
