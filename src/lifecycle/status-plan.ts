import { oneLine } from '../common/text.js';

/**
 * A deployment's state in forge-neutral words, as the deployments table keeps it; each forge maps them to its
 * wire words at its edge (GitHub: `pending` is `queued`, `gone` is `inactive`; Forgejo: a last `success` status
 * saying "Deployment gone"). `pending`: created, nothing started; `error`: the bridge's own fault; `gone`: ended
 * (superseded, or its workload is gone).
 */
export type DeliveryState = 'pending' | 'in_progress' | 'success' | 'failure' | 'error' | 'gone';

/** What Flux (and later the workload's rollout) says about one deployment now. */
export type DesiredState = 'in_progress' | 'success' | 'failure';

/**
 * The states to send so the forge shows `desired`, given the last state it has (`null`: none yet).
 * Pure: the whole lifecycle in one table, for every forge.
 *
 * - First sight: the state itself, `in_progress` or (catch-up) the terminal state. No `pending` first:
 *   a new deployment already shows as pending, and a `pending` sent right before `in_progress` would
 *   be a write nobody sees.
 * - `success` is final; only `gone` (supersession, cleanup) may follow it.
 * - `failure` is not final: a retry of the same commit that succeeds reports `success` on the same
 *   deployment. Flux's retry loop (failure → reconciling → failure) is not echoed, to spare writes.
 * - `gone` (superseded) comes back to `success` only when that commit runs again (a rollback).
 * - `error` (the bridge's own fault) yields to whatever Flux says next.
 * - Never the same state twice in a row.
 */
export function planStatuses(current: DeliveryState | null, desired: DesiredState): DesiredState[] {
  if (current === desired) return [];
  switch (current) {
    case null:
      return [desired];
    case 'pending':
      return [desired];
    case 'in_progress':
      return [desired];
    case 'success':
      return [];
    case 'failure':
      return desired === 'success' ? ['success'] : [];
    case 'gone':
      return desired === 'success' ? ['success'] : [];
    case 'error':
      return [desired];
  }
}

/** A status description that says the rollout is paused (`paused: …`, alone or after the Forgejo text's `·`). */
const PAUSED_TEXT = /(^|· )paused: /;

/**
 * Whether an unfinished deployment should be told again that it is in progress: only when it was
 * paused or resumed since the last status (the description says "paused: …" or stops saying it), so
 * the forge shows the pause; any other change of wording is not worth a write. Pure.
 */
export function restateInProgress(
  current: DeliveryState | null,
  currentDescription: string | null,
  desired: DesiredState,
  text: string,
): boolean {
  return current === 'in_progress' && desired === 'in_progress' && PAUSED_TEXT.test(currentDescription ?? '') !== PAUSED_TEXT.test(text);
}

/** States a forge shows as live or unfinished: what supersession and cleanup end (`gone`). */
export const ACTIVE_STATES: readonly DeliveryState[] = ['success', 'pending', 'in_progress', 'error'];

/** States of an older deployment that a newer success of the same identity ends (`gone`). */
export function isSupersedable(state: DeliveryState | null): boolean {
  return state !== null && ACTIVE_STATES.includes(state);
}

/** How a status description that ends an older commit's deployment starts (`Superseded by 3f2a9c1`): the status page reads it. */
export const SUPERSEDED_PREFIX = 'Superseded by';

/** GitHub's limit on a status description, kept on every forge so one text serves them all. */
export const MAX_DESCRIPTION_CHARS = 140;

/** Shortens text to the 140-character description limit, on one line. */
export function statusDescription(text: string): string {
  return oneLine(text, MAX_DESCRIPTION_CHARS);
}
