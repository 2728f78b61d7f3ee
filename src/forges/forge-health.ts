import { ForgeError } from '../common/errors.js';

/** A rate limit's kind: the budget is spent (primary), or the forge asked to slow down (secondary, a Retry-After). */
export type LimitKind = 'primary' | 'secondary';

/** A rate limit a forge answered with: no request of its scope before `until` (epoch milliseconds). */
export interface RateLimitHit {
  kind: LimitKind;
  until: number;
  reason: string;
}

/** A request budget a forge reported with an answer (GitHub's `x-ratelimit-*` headers). */
export interface Budget {
  resource: string;
  limit: number;
  remaining: number;
  used: number | null;
  /** Epoch milliseconds. */
  resetAt: number;
}

/** Response headers, as the HTTP clients hand them over. */
export type HeaderBag = Record<string, string | number | undefined>;

/** How a forge that reports budgets reads them from an answer's headers: the budget, and a pause when it is spent. */
export interface BudgetReader {
  read(headers: HeaderBag): Budget | undefined;
  spent(headers: HeaderBag, now: number): RateLimitHit | undefined;
}

/** What the last credential check (or a 401) said. */
export type CredentialState = 'unchecked' | 'ok' | 'rejected' | 'unreachable';

/**
 * The longest a forge may make the bridge wait (a rate limit's pause, a Retry-After): an hour, as GitHub's and
 * GitLab's budgets reset at least hourly. A `Retry-After` of 3,000,000 s (35 days) was obeyed, and past Node's
 * timer range its wake-up fired at once, again and again; a longer wait asked is cut to this and said so.
 */
export const MAX_FORGE_WAIT_MS = 3_600_000;

/** A time a forge asked to come back at, no later than MAX_FORGE_WAIT_MS from `now`. Pure. */
export function cappedWait(until: number, now: number): number {
  return Math.min(until, now + MAX_FORGE_WAIT_MS);
}

/** The scope of a forge with a single credential (a token). */
export const TOKEN_SCOPE = 'token';

/** The scope whose pause holds back only the pull request comments of `scope`: a comment's refusal pauses comments alone. */
export const commentScope = (scope: string): string => `${scope} (comments)`;

/**
 * A pause of one forge's requests (every forge has this tracker): of one credential scope for a rate
 * limit (each has its own budget), of all of them for rejected credentials.
 */
export interface ForgePause {
  /** The forge paused, as people read it (its title). */
  forge?: string;
  /** The credential scope a rate limit holds back: `token`, `app`, `installation 42`; absent for rejected credentials. */
  scope?: string;
  kind: LimitKind | 'credentials';
  since: number;
  until: number;
  reason: string;
}

/** What /state shows about a forge's health. */
export interface ForgeHealthSnapshot {
  auth: 'token' | 'app';
  credentials: { state: CredentialState; reason: string | null; checkedAt: number | null; nextCheckAt: number | null };
  /** What holds back every request: rejected credentials, or the rate limit of the only credential (a token). */
  pause: ForgePause | null;
  /** Every running rate-limit pause, one per credential scope. */
  pauses: ForgePause[];
  budgets: Array<Budget & { scope: string; observedAt: number }>;
}

/** Thrown instead of sending a request while a forge's work is paused; the request never left. */
export class ForgePaused extends ForgeError {
  override readonly name = 'ForgePaused';
  constructor(readonly pause: ForgePause) {
    const what = pause.scope === undefined || pause.scope === TOKEN_SCOPE ? 'work' : `requests of ${pause.scope}`;
    super(`${pause.forge ?? 'Forge'} ${what} paused until ${new Date(pause.until).toISOString()}: ${pause.reason}`, undefined, {
      retryAt: pause.until,
      notSent: true,
    });
  }
}

export interface ForgeHealthOptions {
  /** The kind of credential: one token (one scope), or an App with a scope per installation. */
  auth: 'token' | 'app';
  /** The forge's name in messages (its title: `GitHub`, `Forgejo`). */
  forge: string;
  /** Reads the budgets a forge reports with its answers (GitHub's); without it, `observe` records nothing. */
  budgets?: BudgetReader;
  now: () => number;
  /** Called once per new pause of a scope, or of all for credentials (not when one already running is extended). */
  onPause?: (pause: ForgePause) => void;
}

/**
 * One forge's health: credentials, the rate-limit pauses and (optionally, GitHub's) the remaining budget per
 * credential scope (the token; or the App's JWT and each installation, each with a budget of its own). Every
 * request asks `assertOpen(scope)` first, so nothing is sent for a scope while it is paused, and a
 * rate limit one installation hit holds back only that installation's requests. The worker asks
 * `pausedUntil()`: it stops taking work only while the credentials are rejected, since reconciles
 * that need no request of a paused scope (other owners, cleanup bookkeeping, skips) can go on.
 */
export class ForgeHealth {
  private readonly budgets = new Map<string, Budget & { scope: string; observedAt: number }>();
  /** Rate-limit pauses by scope (kept after their end until replaced). */
  private readonly limits = new Map<string, ForgePause>();
  /** The pause of rejected credentials, while they are (its `until` is the next check). */
  private credentialsPause: ForgePause | null = null;
  private credentials: ForgeHealthSnapshot['credentials'] = { state: 'unchecked', reason: null, checkedAt: null, nextCheckAt: null };
  /** Secondary limits without a request succeeding in between, by scope. */
  private readonly secondaryStreaks = new Map<string, number>();
  /** The last request that got no usable answer (network error, timeout, 5xx), until one succeeds. */
  private failure: { reason: string; since: number } | null = null;
  private readonly resumed: Array<() => void> = [];
  private readonly rejected: Array<() => void> = [];

  constructor(private readonly o: ForgeHealthOptions) {}

  /** The forge's name in messages. */
  get forge(): string {
    return this.o.forge;
  }

  /** Records the budget headers of an answer; a spent `core` budget pauses before the next refusal. */
  observe(scope: string, headers: HeaderBag): void {
    if (this.o.budgets === undefined) return;
    const now = this.o.now();
    const b = this.o.budgets.read(headers);
    if (b !== undefined) this.budgets.set(`${scope}|${b.resource}`, { ...b, scope, observedAt: now });
    const spent = this.o.budgets.spent(headers, now);
    if (spent !== undefined) this.rateLimited(spent, scope);
  }

  /** The scope's budget of `resource` as last reported, or undefined. */
  budgetOf(scope: string, resource = 'core'): Budget | undefined {
    return this.budgets.get(`${scope}|${resource}`);
  }

  /** A request of the scope succeeded: credentials work and the scope's secondary-limit streak ends. */
  succeeded(scope: string = TOKEN_SCOPE): void {
    this.secondaryStreaks.delete(scope);
    this.failure = null;
    if (this.credentials.state !== 'ok') this.credentialsOk();
  }

  /** How many secondary limits without `retry-after` the scope met in a row (their wait doubles). */
  secondaryRepeats(scope: string = TOKEN_SCOPE): number {
    return this.secondaryStreaks.get(scope) ?? 0;
  }

  /** Pauses the scope's requests until the hit's time (a later pause already running wins); other scopes go on. */
  rateLimited(hit: RateLimitHit, scope: string = TOKEN_SCOPE): void {
    const now = this.o.now();
    if (hit.kind === 'secondary') this.secondaryStreaks.set(scope, this.secondaryRepeats(scope) + 1);
    const running = this.runningLimit(scope);
    const until = cappedWait(hit.until, now);
    if (running !== null && running.until >= until) return;
    const reason =
      until < hit.until ? `${hit.reason} (asked until ${new Date(hit.until).toISOString()}; waits at most an hour)` : hit.reason;
    const pause: ForgePause = { scope, kind: hit.kind, since: running?.since ?? now, until, reason };
    this.limits.set(scope, pause);
    if (running === null) this.o.onPause?.(pause);
  }

  /** The credential check passed (or a request did): the forge's work may go on. */
  credentialsOk(): void {
    const was = this.credentials.state;
    this.credentials = { state: 'ok', reason: null, checkedAt: this.o.now(), nextCheckAt: null };
    this.failure = null;
    this.credentialsPause = null;
    if (was === 'rejected') for (const fn of this.resumed) fn();
  }

  /** The forge answered 401: none of its work until a check at `nextCheckAt` passes. */
  credentialsRejected(reason: string, nextCheckAt: number): void {
    const now = this.o.now();
    const was = this.credentials.state;
    this.credentials = { state: 'rejected', reason, checkedAt: now, nextCheckAt };
    const since = this.credentialsPause?.since ?? now;
    this.credentialsPause = { kind: 'credentials', since, until: nextCheckAt, reason: `credentials rejected: ${reason}` };
    if (was !== 'rejected') {
      this.o.onPause?.(this.credentialsPause);
      for (const fn of this.rejected) fn();
    }
  }

  /** The check could not reach the forge: not a reason to stop (the queue retries), but shown until something answers. */
  credentialsUnreachable(reason: string, nextCheckAt: number): void {
    if (this.credentials.state === 'rejected' || this.credentials.state === 'ok') return;
    this.credentials = { state: 'unreachable', reason, checkedAt: this.o.now(), nextCheckAt };
    // Degraded with its cause (issue 32: a TLS failure of every check showed as ready and healthy).
    this.failure = { reason, since: this.failure?.since ?? this.o.now() };
  }

  /**
   * Until when requests are held back, or null: with a scope, that scope's (rejected credentials, or
   * its rate limit); without, all of the forge's work (rejected credentials only: a rate limit holds
   * back one scope). While credentials are rejected, at least a second ahead.
   */
  pausedUntil(scope?: string): number | null {
    const now = this.o.now();
    const limit = scope === undefined ? null : this.runningLimit(scope);
    if (this.credentials.state === 'rejected') return Math.max(this.credentials.nextCheckAt ?? 0, now + 1_000, limit?.until ?? 0);
    return limit?.until ?? null;
  }

  /** Throws ForgePaused while the scope's requests are held back; called before every request. */
  assertOpen(scope: string = TOKEN_SCOPE): void {
    const until = this.pausedUntil(scope);
    if (until === null) return;
    const rejected = this.credentials.state === 'rejected';
    const p = (rejected ? this.credentialsPause : this.runningLimit(scope)) ?? {
      kind: 'credentials' as const,
      since: this.o.now(),
      until,
      reason: this.credentials.reason ?? 'credentials rejected',
    };
    throw new ForgePaused({ ...p, until, forge: this.forge });
  }

  /** The scope's rate-limit pause while it runs. */
  private runningLimit(scope: string): ForgePause | null {
    const p = this.limits.get(scope);
    return p !== undefined && p.until > this.o.now() ? p : null;
  }

  /** Registers a callback for when rejected credentials work again. */
  onResume(fn: () => void): void {
    this.resumed.push(fn);
  }

  /** Registers a callback for when credentials are first rejected (a check gets scheduled). */
  onRejected(fn: () => void): void {
    this.rejected.push(fn);
  }

  /** Why the bridge is not ready on this forge (rejected credentials), or undefined. */
  readinessProblem(): string | undefined {
    const c = this.credentials;
    if (c.state !== 'rejected') return undefined;
    return `${this.forge} credentials rejected: ${c.reason ?? 'unknown'}${c.nextCheckAt === null ? '' : ` (next check ${new Date(c.nextCheckAt).toISOString()})`}`;
  }

  /** A request got no usable answer (connection refused, timeout, 5xx): shown until a request succeeds. */
  unreachable(reason: string): void {
    this.failure = { reason, since: this.failure?.since ?? this.o.now() };
  }

  /** Why the forge's work is failing right now (not a readiness problem: the queue retries), or undefined. */
  outage(): string | undefined {
    const f = this.failure;
    return f === null ? undefined : `${this.forge} failing since ${new Date(f.since).toISOString()}: ${f.reason}`;
  }

  get credentialState(): CredentialState {
    return this.credentials.state;
  }

  snapshot(): ForgeHealthSnapshot {
    const pauses = [...this.limits.keys()].flatMap((scope) => this.runningLimit(scope) ?? []).map((p) => ({ ...p }));
    const only = this.o.auth === 'token' ? pauses.find((p) => p.scope === TOKEN_SCOPE) : undefined;
    const pause = this.credentials.state === 'rejected' && this.credentialsPause !== null ? { ...this.credentialsPause } : (only ?? null);
    return {
      auth: this.o.auth,
      credentials: { ...this.credentials },
      pause,
      pauses,
      budgets: [...this.budgets.values()].map((b) => ({ ...b })),
    };
  }
}
