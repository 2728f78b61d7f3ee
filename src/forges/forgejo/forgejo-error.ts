/**
 * Typed failures of a forge other than GitHub (Forgejo and Gitea share one API), shaped like
 * `GitHubError` so the worker sorts them the same way (`isRetryable` delegates to `isForgeRetryable`).
 */

/** The Forgejo calls the bridge makes, named so a refusal can say what was refused. */
export type ForgejoOperation = 'createStatus' | 'listStatuses' | 'credentialCheck';

export class ForgeError extends Error {
  override readonly name = 'ForgeError';
  /** Set when the forge (or a proxy in front of it) asked for no request before this time (epoch milliseconds). */
  readonly retryAt: number | undefined;
  /** The forge's own `message` field, when it answered one (Forgejo hides it on a 500). */
  readonly forgeMessage: string | undefined;
  readonly operation: ForgejoOperation | undefined;
  /** True when the request never left (Forgejo work was paused). */
  readonly notSent: boolean;
  constructor(
    message: string,
    /** The HTTP status; undefined for network failures, timeouts, unreadable answers and requests not sent. */
    readonly status?: number,
    options?: { cause?: unknown; retryAt?: number; forgeMessage?: string; operation?: ForgejoOperation; notSent?: boolean },
  ) {
    super(message, options);
    this.retryAt = options?.retryAt;
    this.forgeMessage = options?.forgeMessage;
    this.operation = options?.operation;
    this.notSent = options?.notSent ?? false;
  }
}

/**
 * True when the same request may succeed later: no answer (network, timeout), 401 (the credentials
 * are checked again and the work resumes once they pass), 408, 429, any 5xx, or an answer that named
 * a time to come back (a 403 only then: Forgejo has no rate limit of its own, so its 403 is a
 * permission problem). The same rules as `isRetryable` for GitHub. Note that Forgejo answers 500 for
 * a status on a commit the repository does not have: that is retried like an outage.
 */
export function isForgeRetryable(err: unknown): boolean {
  if (!(err instanceof ForgeError)) return false;
  const s = err.status;
  return s === undefined || s === 401 || s === 408 || s === 429 || s >= 500 || err.retryAt !== undefined;
}

/** True when the forge definitely did not apply the request: it answered a 4xx (not a timeout, not a 5xx), or it was never sent. */
export function forgeRefused(err: unknown): boolean {
  return err instanceof ForgeError && (err.notSent || (err.status !== undefined && err.status >= 400 && err.status < 500));
}

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
