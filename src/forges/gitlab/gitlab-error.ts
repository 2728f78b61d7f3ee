/**
 * GitLab's failures, typed and sorted once: what the bridge does about each (wait until a time,
 * retry with backoff, check the credentials, refuse the project, refuse the commit, refuse the call).
 * Pure, apart from the error class itself.
 */

/** The GitLab calls the bridge makes, named so a refusal can say what was refused. */
export type GitLabOperation =
  | 'currentUser'
  | 'getProject'
  | 'createDeployment'
  | 'getDeployment'
  | 'updateDeployment'
  | 'listDeployments'
  | 'listEnvironments'
  | 'updateEnvironment'
  | 'stopEnvironment'
  | 'commitRefs'
  | 'mergeRequest'
  | 'listNotes'
  | 'createNote'
  | 'editNote'
  | 'commitMergeRequests'
  | 'getCommit';

export class GitLabError extends Error {
  override readonly name = 'GitLabError';
  /** When GitLab (or a proxy) asked for no request before this time (epoch milliseconds). */
  readonly retryAt: number | undefined;
  /** GitLab's own message (`message` or `error`, a validation hash flattened), when it answered one. */
  readonly gitlabMessage: string | undefined;
  readonly operation: GitLabOperation;
  constructor(
    message: string,
    /** The HTTP status; undefined for network failures, timeouts and unreadable answers. */
    readonly status: number | undefined,
    options: { operation: GitLabOperation; cause?: unknown; retryAt?: number; gitlabMessage?: string },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options.operation;
    this.retryAt = options.retryAt;
    this.gitlabMessage = options.gitlabMessage;
  }
}

/**
 * What to do about a failure:
 * - `pause`: 429 (or a 503) that named a time (`Retry-After`, `RateLimit-Reset`): no GitLab request before `retryAt`;
 * - `retry`: 5xx, 408, 429 without a time, network errors, timeouts: again later, with backoff;
 * - `credentials`: 401: the token is checked again (`GET /user`) and the bridge is unready until it passes;
 * - `refuse_project`: 403 or 404: the token cannot see or write the project (a skip with the reason);
 * - `refuse_commit`: 400 naming the commit or ref GitLab does not have: that commit is not retried;
 * - `refuse`: any other 4xx (a refused transition, a bad parameter): the call itself is wrong.
 */
export type GitLabFailure = 'pause' | 'retry' | 'credentials' | 'refuse_project' | 'refuse_commit' | 'refuse';

/** GitLab's words for a commit or ref a new deployment names that the repository lacks (`Deployment#valid_sha`/`valid_ref`). */
const UNKNOWN_COMMIT = /commit does not exist|branch or tag does not exist/i;

export function classifyGitLabFailure(err: GitLabError): GitLabFailure {
  const s = err.status;
  if (err.retryAt !== undefined) return 'pause';
  if (s === undefined || s === 408 || s === 429 || s >= 500) return 'retry';
  if (s === 401) return 'credentials';
  // The branches of a commit GitLab does not have: 404 "Commit Not Found" speaks of the commit, not the project.
  if (s === 404 && err.operation === 'commitRefs') return 'refuse_commit';
  if (s === 403 || s === 404) return 'refuse_project';
  if (s === 400 && UNKNOWN_COMMIT.test(err.gitlabMessage ?? '')) return 'refuse_commit';
  return 'refuse';
}

/** Statuses whose `Retry-After`/`RateLimit-Reset` the bridge honours: GitLab's throttle, a proxy saying it is unavailable. */
const WAIT_STATUSES = [429, 503];
/** A `RateLimit-Reset` further away than this is taken for a mistake (a clock far off), not obeyed. */
const MAX_PAUSE_MS = 60 * 60 * 1000;

/**
 * When a 429 or 503 asks to come back, as epoch milliseconds: `Retry-After` (delta seconds or an
 * HTTP date), else `RateLimit-Reset` (epoch seconds, GitLab's throttle). Undefined otherwise.
 */
export function pauseUntilOf(status: number, headers: { get(name: string): string | null }, now: number): number | undefined {
  if (!WAIT_STATUSES.includes(status)) return undefined;
  const after = headers.get('retry-after')?.trim() ?? '';
  if (/^\d+$/.test(after)) return now + Number(after) * 1000;
  const date = /^[A-Za-z]{3}, /.test(after) ? Date.parse(after) : NaN;
  if (!Number.isNaN(date)) return Math.max(now, date);
  const reset = headers.get('ratelimit-reset')?.trim() ?? '';
  if (!/^\d+$/.test(reset)) return undefined;
  const at = Number(reset) * 1000;
  return at - now > MAX_PAUSE_MS ? undefined : Math.max(now, at);
}

/** Characters of GitLab's message kept in an error. */
const MAX_MESSAGE_CHARS = 300;

/**
 * GitLab's message from an error body: `{"message": "404 Project Not Found"}`, `{"error": "status
 * does not have a valid value"}` or a validation hash `{"message": {"sha": ["The commit does not
 * exist"]}}` (flattened to `sha The commit does not exist`); undefined for anything else.
 */
export function gitlabMessageOf(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (body === null || typeof body !== 'object') return undefined;
  const said = (body as { message?: unknown; error?: unknown }).message ?? (body as { error?: unknown }).error;
  let flat: string | undefined;
  if (typeof said === 'string') flat = said;
  else if (said !== null && typeof said === 'object')
    flat = Object.entries(said)
      .map(([field, v]) => `${field} ${Array.isArray(v) ? v.map(String).join(', ') : String(v)}`)
      .join('; ');
  const trimmed = flat?.trim();
  return trimmed ? Array.from(trimmed).slice(0, MAX_MESSAGE_CHARS).join('') : undefined;
}
