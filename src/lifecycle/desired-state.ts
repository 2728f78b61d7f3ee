import type { Phase } from '../flux/phase.js';
import { namedObjects } from './health-check.js';
import { MAX_DESCRIPTION_CHARS, statusDescription, type DesiredState } from './status-plan.js';
import type { Rollout } from './rollout.js';

/** What one workload's deployment should show now, and why (already within the 140 characters every forge takes). */
export interface Desired {
  /** `null`: keep the current state (the new revision never reached the cluster). */
  state: DesiredState | null;
  description: string;
}

/** What decides one workload's desired state: its source's phase and its own rollout. */
export interface DesiredInput {
  /** The Flux source's phase (`derivePhase`). */
  phase: Phase;
  /** The workload's own rollout (`rolloutOf`). */
  rollout: Rollout;
  /** `Kind/namespace/name` of the workload, the form Flux uses when it names objects. */
  workloadKey: string;
}

/** Flux's reason with its message, e.g. "HealthCheckFailed: health check failed after 5m0s: …". */
function fluxDescription(phase: Phase): string {
  return statusDescription([phase.reason, phase.message].filter((s) => s.trim() !== '').join(': ') || phase.kind);
}

/** Flux's text when it fits; otherwise the workload first, so truncation cannot cut its name off. */
function namedDescription(phase: Phase, workloadKey: string): string {
  const full = `${phase.reason}: ${phase.message}`.replace(/\s+/g, ' ').trim();
  if (Array.from(full).length <= MAX_DESCRIPTION_CHARS) return full;
  return statusDescription(`${phase.reason}: ${workloadKey} is named in: ${phase.message}`);
}

const is = (state: DesiredState, description: string): Desired => ({ state, description: statusDescription(description) });

/**
 * Combines Flux's verdict on a source with one workload's own rollout, so that the forge shows what
 * really runs:
 * - the workload's rollout failed (progress deadline exceeded) → `failure`, for that workload only;
 * - Flux `not_applied` → `null` (keep the state: the workload still runs what it ran);
 * - Flux `success` → `success` once the rollout is complete, else `in_progress` ("3/5 replicas updated");
 * - Flux `in_progress` → `in_progress`;
 * - Flux `failure` with reason `HealthCheckFailed` is about the objects it names: a named workload
 *   gets `failure`, one whose rollout completed gets `success`, one still rolling out `in_progress`
 *   (one stuck service must not paint its healthy siblings red); a message naming nothing
 *   readable fails every workload of the source;
 * - any other Flux `failure` → `failure`.
 * A rollout failure outranks `not_applied`: it is about the spec the workload runs, whatever Flux
 * did with a newer revision.
 */
export function desiredFor(input: DesiredInput): Desired {
  const { phase, rollout, workloadKey } = input;
  if (rollout.state === 'failed') return is('failure', rollout.description);
  switch (phase.kind) {
    case 'not_applied':
      return { state: null, description: fluxDescription(phase) };
    case 'in_progress':
      return is('in_progress', fluxDescription(phase));
    case 'success':
      return rollout.state === 'complete' ? is('success', fluxDescription(phase)) : is('in_progress', rollout.description);
    case 'failure': {
      if (phase.reason !== 'HealthCheckFailed') return is('failure', fluxDescription(phase));
      const named = namedObjects(phase.message);
      // A message naming nothing readable cannot clear anyone: the whole source failed.
      if (named.size === 0) return is('failure', fluxDescription(phase));
      if (named.has(workloadKey)) return is('failure', namedDescription(phase, workloadKey));
      return rollout.state === 'complete'
        ? is('success', `${rollout.description} (Flux health check failed on other objects)`)
        : is('in_progress', rollout.description);
    }
  }
}
