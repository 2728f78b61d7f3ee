/**
 * The forge-neutral seam of commit times: the lead time for changes (DORA) starts at a commit's committer date,
 * read once per commit from its forge (features/dora/commit-times.ts keeps it). Each forge answers it in its own folder.
 */
import { ForgeCallFailure } from '../common/errors.js';

/** A forge's commits, as far as their time goes. */
export interface CommitTimesPort {
  /**
   * The commit's committer date (epoch milliseconds), or null when the forge does not hold the commit or gives no
   * date (asking again will not change that). An outage, a rate limit or a refused permission throws.
   */
  committedAt(owner: string, repo: string, sha: string): Promise<number | null>;
}

/** An RFC 3339 date a forge gave (`2026-11-30T10:00:00Z`, `…+02:00`) as epoch milliseconds; null when it is none. */
export function forgeDate(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$/i.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** Whether a failure says the forge does not hold the commit (404, or 422 for a SHA it cannot look up): never asked again. */
export const commitMissing = (err: unknown): boolean =>
  err instanceof ForgeCallFailure && err.retryAt === undefined && (err.status === 404 || err.status === 422);

/** Whether a failure says the credential may not read commits (403, not a rate limit): no commit of that forge is read for a while. */
export const commitsForbidden = (err: unknown): boolean =>
  err instanceof ForgeCallFailure && err.retryAt === undefined && err.status === 403;
