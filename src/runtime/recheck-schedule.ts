import type { SourceRef } from '../flux/k8s-objects.js';
import { WATCHED_RECHECK_MS, recheckDelay } from '../lifecycle/recheck-delay.js';
import type { Recheck } from '../reconcile/reconcile-plan.js';

const key = (r: SourceRef) => `${r.kind}/${r.namespace}/${r.name}`;

/**
 * When a source is looked at again on its own, without an event or the resync: a rollout's re-checks
 * back off (`recheckDelay`, counted per source while it keeps rolling out), a cleanup waits out its
 * grace. A source forgets its count as soon as one reconcile finds nothing rolling out. While a watch
 * holds every rolling workload of a source, the watch reports the end and the re-check is only a safety
 * net (WATCHED_RECHECK_MS).
 */
export class RecheckSchedule {
  /** Re-checks already made for each source still rolling out. */
  private readonly attempts = new Map<string, number>();

  constructor(private readonly cleanupGraceMs: number) {}

  /**
   * The delay (ms) before the next look at `ref` after a reconcile that asked for `recheck`, or undefined
   * for none; `watched`: every workload it waits for is under a held watch.
   */
  delayAfter(ref: SourceRef, recheck: Recheck, watched = false): number | undefined {
    const k = key(ref);
    if (recheck !== 'rollout') {
      this.attempts.delete(k);
      return recheck === 'cleanup' ? this.cleanupGraceMs : undefined;
    }
    const n = this.attempts.get(k) ?? 0;
    this.attempts.set(k, n + 1);
    return watched ? Math.max(WATCHED_RECHECK_MS, recheckDelay(n)) : recheckDelay(n);
  }
}
