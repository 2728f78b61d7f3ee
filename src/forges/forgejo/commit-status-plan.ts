/**
 * The lifecycle of one commit-status context, derived from the neutral table (`planStatuses`) so every
 * forge obeys one set of rules: never the same state twice in a row, never `pending` after `success`
 * on the commit, a failure that Flux retries successfully turns `success`, a catch-up on a Ready
 * source sends only `success`, and the end ("gone") comes once, only after a live or unfinished
 * state, like every forge's `gone`. Pure.
 *
 * "Gone" is sent as `success` with a description that starts "Deployment gone" and no target_url:
 * not `warning`, because Forgejo ranks warning below pending when it combines a commit's statuses,
 * so a merged pull request's commit would turn amber for a preview that was closed on purpose; and
 * `success` keeps a required check satisfied. The description tells it apart when it is read back.
 */
import { isSupersedable, planStatuses, statusDescription, type DeliveryState, type DesiredState } from '../../lifecycle/status-plan.js';
import type { CreateStatusBody, ForgejoState, ForgejoStatus } from './forgejo-types.js';

/**
 * What a context shows, in neutral words (the deployments table keeps them as they are); `error`: a state the
 * bridge never sends (`error`, `warning`). A context is never `pending` in the neutral sense: it exists from its first status.
 */
export type ContextPhase = Exclude<DeliveryState, 'pending'>;
/** The phases the bridge sends. */
export type SentPhase = Exclude<ContextPhase, 'error'>;
/** What the reconcile wants a context to show: a Flux/rollout verdict, or `gone` at cleanup. */
export type ForgeDesired = DesiredState | 'gone';

/** How a gone deployment's description begins; how it is recognised when read back. */
export const GONE_PREFIX = 'Deployment gone';

/** Forgejo's state for each phase the bridge sends. */
export const FORGEJO_STATE: Record<SentPhase, ForgejoState> = {
  in_progress: 'pending',
  success: 'success',
  failure: 'failure',
  gone: 'success',
};

/** A context's state as Forgejo shows it (for /state): its status, and for a gone one the description's mark. */
export function forgejoWordOf(state: DeliveryState): string {
  if (state === 'gone') return `success (${GONE_PREFIX})`;
  return state === 'pending' || state === 'error' ? state : FORGEJO_STATE[state];
}

/** The phases to send so the context shows `desired`, given what it shows now (`null`: nothing yet). */
export function planCommitStatuses(current: ContextPhase | null, desired: ForgeDesired): SentPhase[] {
  if (desired === 'gone') return isSupersedable(current) ? ['gone'] : [];
  // The table plans only in_progress, success and failure (its tests pin that): never `error`.
  return planStatuses(current, desired);
}

/** The phase a status read back from Forgejo stands for. */
export function phaseOf(status: Pick<ForgejoStatus, 'status' | 'description'>): ContextPhase {
  switch (status.status) {
    case 'pending':
      return 'in_progress';
    case 'success':
      return status.description.startsWith(GONE_PREFIX) ? 'gone' : 'success';
    case 'failure':
      return 'failure';
    default:
      return 'error';
  }
}

/**
 * The request body for one phase: the description on one line within 140 code points (Forgejo stores
 * TEXT and trims it; the bridge keeps one limit so one text serves every forge), and the target
 * URL except for a deployment that is gone (its URL is dead).
 */
export function statusBody(phase: SentPhase, context: string, text: string, targetUrl?: string): CreateStatusBody {
  const description = statusDescription(phase === 'gone' ? `${GONE_PREFIX}: ${text}` : text);
  return {
    state: FORGEJO_STATE[phase],
    context,
    description,
    ...(phase !== 'gone' && targetUrl !== undefined && targetUrl !== '' ? { target_url: targetUrl } : {}),
  };
}
