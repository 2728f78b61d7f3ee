import type { Logger } from 'pino';
import { errorMessage, waitsForTurn } from '../common/errors.js';
import type { Metrics } from '../common/metrics.js';
import type { KubeReader } from '../kube/kube-types.js';
import type { ReconcileOutcome } from '../reconcile/reconcile-source.js';
import type { QueueItem } from '../store/queue-store.js';
import type { SourceStore } from '../store/source-store.js';
import type { RecheckSchedule } from './recheck-schedule.js';
import type { RolloutTracking } from './rollout-tracking.js';

export interface SourceRunnerDeps {
  /** One reconcile of the item's source, reading through `kube` and logging to `log` (`reconcileSource`, wired). */
  reconcile: (item: QueueItem, kube: KubeReader, log: Logger) => Promise<ReconcileOutcome>;
  /** Fresh reads for events and re-checks; the resync pass's listings for runs only the resync asked for. */
  readers: { fresh: KubeReader; pass: KubeReader };
  rechecks: Pick<RecheckSchedule, 'delayAfter'>;
  /** Follows the workloads a reconcile found rolling out through watches (none: re-checks only). */
  tracking?: Pick<RolloutTracking, 'begin'>;
  sources: Pick<SourceStore, 'recordError' | 'recordSuccess'>;
  metrics: Pick<Metrics, 'reconciles' | 'reconcileSeconds' | 'eventToStatus'>;
  log: Logger;
  now: () => number;
}

/**
 * The Worker's run function: reconciles one queued source with its own logger, counts and times it,
 * keeps a failure's message on the source for /state, and answers when to look at it again on its
 * own (undefined: not until an event or the resync). A failure is rethrown: the worker retries it.
 * A run that only waits for its turn (a look-up's batch, the write budget) is no failure: counted as
 * `waiting`, the source's last error left as it was, rethrown so the worker brings it back on time.
 */
export function createSourceRunner(deps: SourceRunnerDeps): (item: QueueItem) => Promise<number | undefined> {
  const { metrics, now } = deps;
  return async (item) => {
    const log = deps.log.child({ fluxObject: `${item.kind}/${item.namespace}/${item.name}` });
    const done = metrics.reconcileSeconds.startTimer();
    try {
      const base = item.viaResync ? deps.readers.pass : deps.readers.fresh;
      const tracked = deps.tracking?.begin(item, base);
      const out = await deps.reconcile(item, tracked?.reader ?? base, log);
      metrics.reconciles.inc({ outcome: 'ok' });
      try {
        deps.sources.recordSuccess(item);
      } catch {
        /* storage failing: the next run that goes through clears it (only /metrics reads it) */
      }
      if (out.statusesSent > 0 && item.firstEventAt !== null) metrics.eventToStatus.observe((now() - item.firstEventAt) / 1000);
      return deps.rechecks.delayAfter(item, out.recheck, tracked?.end() ?? false);
    } catch (err) {
      if (waitsForTurn(err)) {
        metrics.reconciles.inc({ outcome: 'waiting' });
        throw err;
      }
      metrics.reconciles.inc({ outcome: 'error' });
      try {
        deps.sources.recordError(item, errorMessage(err), now());
      } catch {
        /* storage failing: the worker reports it when it records the outcome */
      }
      throw err;
    } finally {
      done();
    }
  };
}
