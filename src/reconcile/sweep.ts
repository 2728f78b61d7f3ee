import type { Logger } from 'pino';
import type { Forge } from '../forges/forge.js';
import type { CleanupPlan } from './cleanup-plan.js';
import type { AbsenceStore } from '../store/absence-store.js';
import type { DeploymentStore } from '../store/deployment-store.js';
import type { ReconcileHooks } from './reconcile-hooks.js';

export interface CleanupDeps {
  /** Read for the plan: the source's live deployments. */
  deployments: Pick<DeploymentStore, 'activeForSource' | 'knowsSource'>;
  absences: AbsenceStore;
  /** The publisher itself, not the refusal guard: see `sweep`. */
  publisher: Pick<Forge, 'retire'>;
  /** The features' hooks, told of each deployment ended (a pull request comment's row says `gone`). */
  hooks?: readonly ReconcileHooks[] | undefined;
  graceMs: number;
  log: Logger;
}

/**
 * Carries out a cleanup plan: forgets the absences that ended, records each new miss, and ends the
 * deployments of confirmed absences (an `inactive` status each) before forgetting their absence.
 *
 * Cleanup deactivations do not go through the refusal guard (GuardedPublisher): they use the
 * publisher directly. The guard turns a refused target into a skipped workload shown on /state and
 * holds the request back until its late retry; a deactivation has no workload left to skip, and it
 * writes to a deployment the bridge created and holds the id of. A deployment deleted on its forge
 * (404) needs no ending: the publisher forgets it and the step is done. Any other failure
 * (an outage, a paused credential, a 403 or 422 the forge keeps giving) leaves that workload's
 * absence confirmed and fails the reconcile after the other steps are carried out: the worker
 * retries the source with its backoff (at most 5 minutes apart, for as long as the forge refuses),
 * only the deactivations still due are sent again, and /state shows the source's error.
 */
export async function sweep(deps: CleanupDeps, plan: CleanupPlan): Promise<void> {
  deps.absences.retain(plan.prefix, plan.keep);
  let failed: { err: unknown } | undefined;
  for (const step of plan.steps) {
    if (step.kind === 'wait') {
      deps.absences.put(step.absenceKey, step.absence);
      continue;
    }
    let ended = true;
    for (const row of step.rows) {
      try {
        await deps.publisher.retire(row, step.description);
        for (const h of deps.hooks ?? []) h.retired?.(row);
      } catch (err) {
        failed ??= { err };
        ended = false;
      }
    }
    if (!ended) continue;
    deps.absences.clear(step.absenceKey);
    deps.log.info({ workload: step.workload, deployments: step.rows.length, reason: step.description }, 'deployments ended: workload gone');
  }
  if (failed !== undefined) throw failed.err;
}
