import { GitHubError } from '../../common/errors.js';
import { budgetSpent, readBudget, type Budget, type HeaderBag, type LimitKind, type RateLimitHit } from './rate-limit.js';

/** What the last credential check (or a 401) said. */
export type CredentialState = 'unchecked' | 'ok' | 'rejected' | 'unreachable';

/** A pause of all of one forge's work (GitHub's, or Forgejo's: the same tracker serves both). */
export interface GitHubPause {
  /** The forge paused, as people read it: `GitHub`, `Forgejo`. */
  forge?: string;
  kind: LimitKind | 'credentials';
  since: number;
  until: number;
  reason: string;
}

/** What /state shows about the GitHub side. */
export interface GitHubHealthSnapshot {
  auth: 'token' | 'app';
  credentials: { state: CredentialState; reason: string | null; checkedAt: number | null; nextCheckAt: number | null };
  pause: GitHubPause | null;
  budgets: Array<Budget & { scope: string; observedAt: number }>;
}

/** Thrown instead of sending a request while GitHub work is paused; the request never left. */
export class GitHubPaused extends GitHubError {
  override readonly name = 'GitHubPaused';
  constructor(readonly pause: GitHubPause) {
    super(`${pause.forge ?? 'GitHub'} work paused until ${new Date(pause.until).toISOString()}: ${pause.reason}`, undefined, {
      retryAt: pause.until,
    });
  }
}

export interface GitHubHealthOptions {
  auth: 'token' | 'app';
  /** The forge's name in messages (default `GitHub`). */
  forge?: string;
  now: () => number;
  /** Called once per new pause (not when one already running is extended). */
  onPause?: (pause: GitHubPause) => void;
}

/**
 * The GitHub side's health: credentials, the rate-limit pause and the remaining budget per scope.
 * Every GitHub request asks `assertOpen()` first, so nothing is sent while paused; the worker asks
 * `pausedUntil()` so it takes no work until then.
 */
export class GitHubHealth {
  private readonly budgets = new Map<string, Budget & { scope: string; observedAt: number }>();
  private pause: GitHubPause | null = null;
  private credentials: GitHubHealthSnapshot['credentials'] = { state: 'unchecked', reason: null, checkedAt: null, nextCheckAt: null };
  private secondaryStreak = 0;
  /** The last request that got no usable answer (network error, timeout, 5xx), until one succeeds. */
  private failure: { reason: string; since: number } | null = null;
  private readonly resumed: Array<() => void> = [];
  private readonly rejected: Array<() => void> = [];

  constructor(private readonly o: GitHubHealthOptions) {}

  /** The forge's name in messages. */
  get forge(): string {
    return this.o.forge ?? 'GitHub';
  }

  /** Records the budget headers of an answer; a spent `core` budget pauses before the next refusal. */
  observe(scope: string, headers: HeaderBag): void {
    const now = this.o.now();
    const b = readBudget(headers);
    if (b !== undefined) this.budgets.set(`${scope}|${b.resource}`, { ...b, scope, observedAt: now });
    const spent = budgetSpent(headers, now);
    if (spent !== undefined) this.rateLimited(spent);
  }

  /** A request succeeded: credentials work and the secondary-limit streak ends. */
  succeeded(): void {
    this.secondaryStreak = 0;
    this.failure = null;
    if (this.credentials.state !== 'ok') this.credentialsOk();
  }

  /** How many secondary limits without `retry-after` came in a row (their wait doubles). */
  get secondaryRepeats(): number {
    return this.secondaryStreak;
  }

  /** Pauses all GitHub work until the hit's time (a later pause already running wins). */
  rateLimited(hit: RateLimitHit): void {
    const now = this.o.now();
    if (hit.kind === 'secondary') this.secondaryStreak += 1;
    const running = this.pause !== null && this.pause.until > now ? this.pause : null;
    if (running !== null && running.until >= hit.until) return;
    this.pause = { kind: hit.kind, since: running?.since ?? now, until: hit.until, reason: hit.reason };
    if (running === null) this.o.onPause?.(this.pause);
  }

  /** The credential check passed (or a request did): GitHub work may go on. */
  credentialsOk(): void {
    const was = this.credentials.state;
    this.credentials = { state: 'ok', reason: null, checkedAt: this.o.now(), nextCheckAt: null };
    this.failure = null;
    if (this.pause?.kind === 'credentials') this.pause = null;
    if (was === 'rejected') for (const fn of this.resumed) fn();
  }

  /** GitHub answered 401: no GitHub work until a check at `nextCheckAt` passes. */
  credentialsRejected(reason: string, nextCheckAt: number): void {
    const now = this.o.now();
    const was = this.credentials.state;
    this.credentials = { state: 'rejected', reason, checkedAt: now, nextCheckAt };
    if (this.pause === null || this.pause.until <= now || this.pause.kind === 'credentials') {
      const since = this.pause?.kind === 'credentials' ? this.pause.since : now;
      this.pause = { kind: 'credentials', since, until: nextCheckAt, reason: `credentials rejected: ${reason}` };
    }
    if (was !== 'rejected') {
      this.o.onPause?.(this.pause);
      for (const fn of this.rejected) fn();
    }
  }

  /** The check could not reach GitHub: not a reason to stop (the queue retries), but shown until something answers. */
  credentialsUnreachable(reason: string, nextCheckAt: number): void {
    if (this.credentials.state === 'rejected' || this.credentials.state === 'ok') return;
    this.credentials = { state: 'unreachable', reason, checkedAt: this.o.now(), nextCheckAt };
  }

  /** Until when GitHub work is paused, or null. While credentials are rejected, at least a second ahead. */
  pausedUntil(): number | null {
    const now = this.o.now();
    if (this.credentials.state === 'rejected') return Math.max(this.credentials.nextCheckAt ?? 0, now + 1_000);
    return this.pause !== null && this.pause.until > now ? this.pause.until : null;
  }

  /** Throws GitHubPaused while paused; called before every request. */
  assertOpen(): void {
    const until = this.pausedUntil();
    if (until === null) return;
    const p = this.pause ?? {
      kind: 'credentials' as const,
      since: this.o.now(),
      until,
      reason: this.credentials.reason ?? 'credentials rejected',
    };
    throw new GitHubPaused({ ...p, until, forge: this.forge });
  }

  /** Registers a callback for when rejected credentials work again. */
  onResume(fn: () => void): void {
    this.resumed.push(fn);
  }

  /** Registers a callback for when credentials are first rejected (a check gets scheduled). */
  onRejected(fn: () => void): void {
    this.rejected.push(fn);
  }

  /** Why the bridge is not ready on the GitHub side (rejected credentials), or undefined. */
  readinessProblem(): string | undefined {
    const c = this.credentials;
    if (c.state !== 'rejected') return undefined;
    return `${this.forge} credentials rejected: ${c.reason ?? 'unknown'}${c.nextCheckAt === null ? '' : ` (next check ${new Date(c.nextCheckAt).toISOString()})`}`;
  }

  /** A request got no usable answer (connection refused, timeout, 5xx): shown until a request succeeds. */
  unreachable(reason: string): void {
    this.failure = { reason, since: this.failure?.since ?? this.o.now() };
  }

  /** Why GitHub work is failing right now (not a readiness problem: the queue retries), or undefined. */
  outage(): string | undefined {
    const f = this.failure;
    return f === null ? undefined : `${this.forge} failing since ${new Date(f.since).toISOString()}: ${f.reason}`;
  }

  get credentialState(): CredentialState {
    return this.credentials.state;
  }

  snapshot(): GitHubHealthSnapshot {
    const now = this.o.now();
    return {
      auth: this.o.auth,
      credentials: { ...this.credentials },
      pause: this.pause !== null && (this.pause.until > now || this.credentials.state === 'rejected') ? { ...this.pause } : null,
      budgets: [...this.budgets.values()].map((b) => ({ ...b })),
    };
  }
}
