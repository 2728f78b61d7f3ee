/**
 * Forgejo's (and Gitea's) failures are the forge-neutral `ForgeError` (common/errors.ts), tagged with the
 * operation; here is what is Forgejo's own: its operations and how it asks to wait. Note that Forgejo answers
 * 500 for a status on a commit the repository does not have: that is retried like an outage.
 */

/** The Forgejo calls the bridge makes, named so a refusal can say what was refused. */
export type ForgejoOperation =
  'createStatus' | 'listStatuses' | 'credentialCheck' | 'pullRequest' | 'listComments' | 'createComment' | 'editComment' | 'getCommit';

/** Statuses whose `Retry-After` the bridge honours: a rate limit, or a proxy saying the forge is unavailable. */
const WAIT_STATUSES = [429, 503];

/**
 * When a 429 or 503 answer asks to come back (`Retry-After`: delta seconds or an HTTP date), as
 * epoch milliseconds; undefined otherwise. Pure.
 */
export function retryAtOf(status: number, retryAfter: string | null, now: number): number | undefined {
  if (!WAIT_STATUSES.includes(status) || retryAfter === null || retryAfter.trim() === '') return undefined;
  const text = retryAfter.trim();
  if (/^\d+$/.test(text)) return now + Number(text) * 1000;
  // An HTTP date names its day and month; anything else (`-5`, `soon`) is ignored, not guessed at.
  const at = /^[A-Za-z]{3}, /.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(now, at);
}
