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

/**
 * A failed request to a forge, by its HTTP status (none for network failures and timeouts) and, when the forge
 * asked for it, the time to come back: what `isRetryable` sorts by. `ForgeError` is the neutral one every
 * token forge's client throws; a forge whose client library has its own errors (octokit) subclasses this.
 */
export class ForgeCallFailure extends Error {
  override readonly name: string = 'ForgeCallFailure';
  /** Set when the forge (or a proxy in front of it) asked for no request before this time (epoch milliseconds). */
  readonly retryAt: number | undefined;
  constructor(
    message: string,
    /** The HTTP status; undefined for network failures, timeouts, unreadable answers and requests not sent. */
    readonly status?: number,
    options?: { cause?: unknown; retryAt?: number },
  ) {
    super(message, options);
    this.retryAt = options?.retryAt;
  }
}

/**
 * A failed request to a forge, in forge-neutral terms: the HTTP status (none for network failures, timeouts and
 * requests not sent), the forge's own message and the operation. Each forge's client throws it (or its own
 * subclass of ForgeCallFailure), so the worker sorts every forge's failures with `isRetryable`.
 */
export class ForgeError extends ForgeCallFailure {
  override readonly name: string = 'ForgeError';
  /** The forge's own message, when it answered one. */
  readonly forgeMessage: string | undefined;
  readonly operation: string | undefined;
  /** True when the request never left (the forge's work was paused). */
  readonly notSent: boolean;
  constructor(
    message: string,
    status?: number,
    options?: { cause?: unknown; retryAt?: number; forgeMessage?: string; operation?: string; notSent?: boolean },
  ) {
    super(message, status, options);
    this.forgeMessage = options?.forgeMessage;
    this.operation = options?.operation;
    this.notSent = options?.notSent ?? false;
  }
}

/**
 * Not a failure: a request that was never sent because its turn has not come (a look-up waiting for its batch, a
 * write waiting for the write budget), due at `retryAt`. The worker brings its source back then without counting a
 * failed attempt: many turns waited must not grow the backoff of a later real failure (an outage right after a
 * first pass's queued look-ups would otherwise wait the backoff's 5-minute cap).
 */
export class WaitsForTurn extends ForgeError {
  override readonly name: string = 'WaitsForTurn';
  constructor(message: string, retryAt: number, options?: { operation?: string }) {
    super(message, undefined, { retryAt, notSent: true, ...options });
  }
}

/** True when `err` (or a cause of it) only waits for its turn (WaitsForTurn): nothing failed. */
export function waitsForTurn(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof WaitsForTurn) return true;
  return false;
}

/**
 * True when the same request may succeed later: no answer (network, timeout), 401 (the credentials
 * are checked again and the work resumes once they pass), 408, 429, any 5xx, or an answer that named
 * a time to come back (a 403 only then: a 403 is a permission problem otherwise). Every forge's failures alike.
 */
function retryableCall(err: ForgeCallFailure): boolean {
  const s = err.status;
  return s === undefined || s === 401 || s === 408 || s === 429 || s >= 500 || err.retryAt !== undefined;
}

/** `retryableCall` for the neutral ForgeError alone (a forge's own refusal classifier reads only its client's errors). */
export function isForgeRetryable(err: unknown): boolean {
  return err instanceof ForgeError && retryableCall(err);
}

/** True when the forge definitely did not apply the request: it answered a 4xx (not a timeout, not a 5xx), or it was never sent. */
export function forgeRefused(err: unknown): boolean {
  return err instanceof ForgeError && (err.notSent || (err.status !== undefined && err.status >= 400 && err.status < 500));
}

/** True when trying the same work again later may succeed (outages, timeouts, 5xx, rate limits). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof ForgeCallFailure) return retryableCall(err);
  if (err instanceof RegistryError) return err.failure === 'unavailable' || err.failure === 'timeout';
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

/** Node's codes of a certificate the process does not trust (an unknown CA, self-signed, expired, another host's). */
const TLS_CODES = /^(UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED|CERT_|ERR_TLS_CERT_ALTNAME)/;

/**
 * What a failure says, with the TLS problem among its causes named (fetch says only `fetch failed`), and what to do
 * about a corporate CA (issue 32: an unknown CA looked healthy).
 */
export function failureReason(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TLS_CODES.test(code))
      return `TLS certificate not trusted (${code}: ${e.message}): a certificate of a corporate CA needs its bundle in NODE_EXTRA_CA_CERTS (docs/security.md)`;
  }
  return errorMessage(err);
}
