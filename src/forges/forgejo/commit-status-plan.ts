/**
 * The lifecycle of one commit-status context, derived from GitHub's table (`planStatuses`) so both
 * forges obey one set of rules: never the same state twice in a row, never `pending` after `success`
 * on the commit, a failure that Flux retries successfully turns `success`, a catch-up on a Ready
 * source sends only `success`, and the end ("gone") comes once, only after a live or unfinished
 * state, like GitHub's `inactive`. Pure.
 *
 * "Gone" is sent as `success` with a description that starts "Deployment gone" and no target_url:
 * not `warning`, because Forgejo ranks warning below pending when it combines a commit's statuses,
 * so a merged pull request's commit would turn amber for a preview that was closed on purpose; and
 * `success` keeps a required check satisfied. The description tells it apart when it is read back.
 */
import type { StatusState } from '../github/github-types.js';
import { isSupersedable, planStatuses, statusDescription, type DesiredState } from '../../lifecycle/status-plan.js';
import type { CreateStatusBody, ForgejoState, ForgejoStatus } from './forgejo-types.js';

/** What a context shows, in the bridge's words; `error`: a state the bridge never sends (`error`, `warning`). */
export type ContextPhase = 'in_progress' | 'success' | 'failure' | 'gone' | 'error';
/** The phases the bridge sends. */
export type SentPhase = Exclude<ContextPhase, 'error'>;
/** What the reconcile wants a context to show: a Flux/rollout verdict, or `gone` at cleanup. */
export type ForgeDesired = DesiredState | 'gone';

/** How a gone deployment's description begins; how it is recognised when read back. */
export const GONE_PREFIX = 'Deployment gone';

const AS_GITHUB: Record<ContextPhase, StatusState> = {
  in_progress: 'in_progress',
  success: 'success',
  failure: 'failure',
  gone: 'inactive',
  error: 'error',
};
const FROM_GITHUB: Record<StatusState, ContextPhase> = {
  queued: 'in_progress',
  in_progress: 'in_progress',
  success: 'success',
  failure: 'failure',
  inactive: 'gone',
  error: 'error',
};

/** A phase in GitHub's words: how the deployments table keeps a Forgejo context (cleanup and /state read one vocabulary). */
export const asGitHubState = (phase: ContextPhase): StatusState => AS_GITHUB[phase];
/** The phase a GitHub-worded state stands for. */
export const fromGitHubState = (state: StatusState): ContextPhase => FROM_GITHUB[state];

/** Forgejo's state for each phase the bridge sends. */
export const FORGEJO_STATE: Record<SentPhase, ForgejoState> = {
  in_progress: 'pending',
  success: 'success',
  failure: 'failure',
  gone: 'success',
};

/** The phases to send so the context shows `desired`, given what it shows now (`null`: nothing yet). */
export function planCommitStatuses(current: ContextPhase | null, desired: ForgeDesired): SentPhase[] {
  const now = current === null ? null : AS_GITHUB[current];
  if (desired === 'gone') return isSupersedable(now) ? ['gone'] : [];
  // GitHub's table plans only in_progress, success and failure (its tests pin that): never `error`.
  return planStatuses(now, desired)
    .map((s) => FROM_GITHUB[s])
    .filter((p): p is SentPhase => p !== 'error');
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
 * TEXT and trims it; the bridge keeps GitHub's limit so one text serves both forges), and the target
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
