import type { Phase } from '../flux/phase.js';
import { desiredFor } from '../lifecycle/desired-state.js';
import { identityKey } from '../lifecycle/identity.js';
import { needsRecheck } from '../lifecycle/recheck-delay.js';
import type { Rollout } from '../lifecycle/rollout.js';
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { Skip } from '../store/source-store.js';
import { planCleanup, type CleanupInput, type CleanupPlan } from './cleanup-plan.js';
import type { Candidate, ResolvedSource } from './resolve-source.js';

/** One deployment (on its forge) to bring to a state. */
export interface PublishStep extends Candidate {
  state: DesiredState;
  description: string;
}

/** Why the source should be looked at again soon without waiting for an event or the resync. */
export type Recheck = 'rollout' | 'cleanup' | null;

/** Everything one reconcile of a source does, decided before any of it is done. */
export interface ReconcilePlan {
  /** Each target once (the first workload naming it decides its state), in inventory order. */
  publish: readonly PublishStep[];
  /** Workload containers that do not report, and why (refusals met while publishing are the executor's to add). */
  skips: readonly Skip[];
  cleanup: CleanupPlan;
  /** Transient failures met while resolving (registry or Kubernetes outages): the source is retried once the rest is done. */
  retry: readonly unknown[];
  recheck: Recheck;
}

/** What the plan is made of: the source as read (null: the Flux object is gone) and the cleanup state of its cache. */
export interface PlanInput extends Omit<CleanupInput, 'sighting'> {
  read: { phase: Phase; resolved: ResolvedSource } | null;
}

/**
 * Plans one reconcile of a Flux source. Each opted-in workload's deployments are brought to what Flux's
 * word and the workload's own rollout make of them (`desiredFor`; a `not_applied` revision publishes
 * nothing); workloads that left the source are cleaned up (`planCleanup`). The source is looked at again
 * while a published workload still rolls out (Flux sends no event when it ends), else while a cleanup
 * waits for its confirming read. Pure.
 */
export function planReconcile(input: PlanInput): ReconcilePlan {
  const { read } = input;
  const cleanup = planCleanup({ ...input, sighting: read && read.resolved });
  const { publish, rollingOut } = read ? planPublish(read.phase, read.resolved) : { publish: [], rollingOut: false };
  return {
    publish,
    skips: read?.resolved.skips ?? [],
    cleanup,
    retry: read?.resolved.retry ?? [],
    recheck: rollingOut ? 'rollout' : cleanup.waiting ? 'cleanup' : null,
  };
}

/** The targets to publish, and whether one of their workloads is still rolling out. */
function planPublish(phase: Phase, resolved: ResolvedSource): { publish: PublishStep[]; rollingOut: boolean } {
  const publish: PublishStep[] = [];
  const rollouts: Rollout[] = [];
  const seen = new Set<string>();
  for (const w of resolved.workloads) {
    const desired = desiredFor({ phase, rollout: w.rollout, workloadKey: w.key });
    if (desired.state === null || w.candidates.length === 0) continue;
    rollouts.push(w.rollout);
    for (const c of w.candidates) {
      const key = identityKey(c.target);
      if (seen.has(key)) continue;
      seen.add(key);
      publish.push({ ...c, state: desired.state, description: desired.description });
    }
  }
  return { publish, rollingOut: needsRecheck(rollouts) };
}
