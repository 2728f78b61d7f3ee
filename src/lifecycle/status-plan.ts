import type { StatusState } from '../forges/github/github-types.js';
import { oneLine } from '../common/text.js';

/** What Flux (and later the workload's rollout) says about one deployment now. */
export type DesiredState = 'in_progress' | 'success' | 'failure';

/**
 * The statuses to send so GitHub shows `desired`, given the last status GitHub has (`null`: none yet).
 * Pure: the whole lifecycle in one table.
 *
 * - First sight: the state itself, `in_progress` or (catch-up) the terminal state. No `queued` first:
 *   a new deployment already shows as pending on GitHub, and a `queued` sent right before
 *   `in_progress` would be a write nobody sees.
 * - `success` is final; only `inactive` (supersession) may follow it.
 * - `failure` is not final: a retry of the same commit that succeeds reports `success` on the same
 *   deployment. Flux's retry loop (failure → reconciling → failure) is not echoed, to spare writes.
 * - `inactive` (superseded) comes back to `success` only when that commit runs again (a rollback).
 * - `error` (the bridge's own fault) yields to whatever Flux says next.
 * - Never the same state twice in a row.
 */
export function planStatuses(current: StatusState | null, desired: DesiredState): StatusState[] {
  if (current === desired) return [];
  switch (current) {
    case null:
      return [desired];
    case 'queued':
      return [desired];
    case 'in_progress':
      return [desired];
    case 'success':
      return [];
    case 'failure':
      return desired === 'success' ? ['success'] : [];
    case 'inactive':
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
  current: StatusState | null,
  currentDescription: string | null,
  desired: DesiredState,
  text: string,
): boolean {
  return current === 'in_progress' && desired === 'in_progress' && PAUSED_TEXT.test(currentDescription ?? '') !== PAUSED_TEXT.test(text);
}

/** States GitHub shows as live or unfinished: what supersession and cleanup turn `inactive`. */
export const ACTIVE_STATES: readonly StatusState[] = ['success', 'queued', 'in_progress', 'error'];

/** States of an older deployment that a newer success of the same identity turns `inactive`. */
export function isSupersedable(state: StatusState | null): boolean {
  return state !== null && ACTIVE_STATES.includes(state);
}

/** GitHub's limit on a status description. */
export const MAX_DESCRIPTION_CHARS = 140;

/** Shortens text to GitHub's 140-character description limit, on one line. */
export function statusDescription(text: string): string {
  return oneLine(text, MAX_DESCRIPTION_CHARS);
}
