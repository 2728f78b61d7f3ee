import { ForgeError, isForgeRetryable } from '../forges/forgejo/forgejo-error.js';

/**
 * Typed errors of the bridge. Every adapter wraps what it caught with `{ cause }` and one of
 * these classes, so the worker can sort failures with a single `isRetryable`.
 */

/** Registry failure kinds; each maps to an actionable skip reason. */
export type RegistryFailure = 'denied' | 'not_found' | 'unavailable' | 'timeout' | 'tls' | 'invalid' | 'not_allowed';

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    readonly failure: RegistryFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class KubeError extends Error {
  override readonly name = 'KubeError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class GitHubError extends Error {
  override readonly name: string = 'GitHubError';
  /** Set for rate limits: GitHub asks for no request before this time (epoch milliseconds). */
  readonly retryAt: number | undefined;
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown; retryAt?: number },
  ) {
    super(message, options);
    this.retryAt = options?.retryAt;
  }
}

/** True when trying the same work again later may succeed (outages, timeouts, 5xx, rate limits). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof ForgeError) return isForgeRetryable(err);
  if (err instanceof RegistryError) return err.failure === 'unavailable' || err.failure === 'timeout';
  if (err instanceof GitHubError) {
    // 401: credentials are refreshed or fixed, then the work runs; 403 is transient only as a rate limit.
    const s = err.status;
    return s === undefined || s === 401 || s === 408 || s === 429 || s >= 500 || err.retryAt !== undefined;
  }
  if (err instanceof KubeError) {
    const s = err.status;
    return s === undefined || s === 408 || s === 429 || s >= 500;
  }
  return false;
}

/** The message of anything thrown, for logs and /state. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
