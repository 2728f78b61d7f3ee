import type { Logger } from 'pino';
import type { Publisher } from './deployment-publisher.js';
import type { CleanupPlan } from './cleanup-plan.js';
import type { AbsenceStore } from '../store/absence-store.js';
import type { DeploymentStore } from '../store/deployment-store.js';

export interface CleanupDeps {
  /** Read for the plan: the source's live deployments. */
  deployments: Pick<DeploymentStore, 'activeForSource'>;
  absences: AbsenceStore;
  /** The publisher itself, not the refusal guard: see `sweep`. */
  publisher: Pick<Publisher, 'deactivate'>;
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
 * writes to a deployment the bridge created and holds the id of. So a failed deactivation, refused
 * or not, fails the reconcile: the worker retries the source with its backoff, the absence stays
 * confirmed (only the deactivations still due are sent again), and /state shows the source's error.
 */
export async function sweep(deps: CleanupDeps, plan: CleanupPlan): Promise<void> {
  deps.absences.retain(plan.prefix, plan.keep);
  for (const step of plan.steps) {
    if (step.kind === 'wait') {
      deps.absences.put(step.absenceKey, step.absence);
      continue;
    }
    for (const row of step.rows) await deps.publisher.deactivate(row, step.description);
    deps.absences.clear(step.absenceKey);
    deps.log.info({ workload: step.workload, deployments: step.rows.length, reason: step.description }, 'deployments ended: workload gone');
  }
}
