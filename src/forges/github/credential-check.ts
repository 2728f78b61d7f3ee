import type { Logger } from 'pino';
import { errorMessage } from '../../common/errors.js';
import { GitHubCallError } from './call-error.js';
import type { GitHubHealth } from './github-health.js';

/** GitHub's rejection: a 401 answer. */
const githubUnauthorized = (err: unknown): string | undefined =>
  err instanceof GitHubCallError && err.status === 401 ? `401 ${err.githubMessage ?? err.message}` : undefined;

/** Wait before checking rejected (or unreachable) credentials again; doubled per failure up to the cap. */
export const RECHECK_FIRST_MS = 60_000;
export const RECHECK_MAX_MS = 10 * 60_000;

export interface CredentialMonitorOptions {
  /** `GET /rate_limit` (token) or `GET /app` (App); answers a problem that stops the work, or undefined. Throws on failure. */
  check: () => Promise<string | undefined>;
  health: GitHubHealth;
  /** The rejection a failed check means (a 401), or undefined for a failure to reach the forge; default GitHub's. */
  unauthorized?: (err: unknown) => string | undefined;
  log: Logger;
  now: () => number;
}

/**
 * Checks the GitHub credentials at start and after every 401: while GitHub rejects them, readiness
 * says why and GitHub work is paused; the check repeats with backoff and work resumes when it passes.
 * The first check after a 401 runs at once: the rejected token was dropped, so the next one is fresh.
 */
export class CredentialMonitor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private failures = 0;
  private lastCheck = -Infinity;
  private stopped = false;

  constructor(private readonly o: CredentialMonitorOptions) {}

  /** The first check; returns when it is done (callers need not wait). */
  start(): Promise<void> {
    return this.checkNow();
  }

  /** A request was answered 401: stop GitHub work and check again (now, unless a check just ran). */
  rejected(reason: string): void {
    const now = this.o.now();
    const soon = now - this.lastCheck >= RECHECK_FIRST_MS ? 0 : this.delay();
    this.o.health.credentialsRejected(`401 ${reason}`, now + soon);
    this.schedule(soon);
  }

  /** Runs one check (joining one already running). */
  checkNow(): Promise<void> {
    this.running ??= this.runCheck().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async runCheck(): Promise<void> {
    this.lastCheck = this.o.now();
    try {
      const problem = await this.o.check();
      if (problem !== undefined) {
        this.failed(problem);
        return;
      }
      this.failures = 0;
      clearTimeout(this.timer);
      const was = this.o.health.credentialState;
      this.o.health.credentialsOk();
      if (was !== 'ok') this.o.log.info(`${this.forge} credentials accepted`);
    } catch (err) {
      const rejected = (this.o.unauthorized ?? githubUnauthorized)(err);
      if (rejected !== undefined) {
        this.failed(rejected);
        return;
      }
      this.failures += 1;
      const delay = this.delay();
      this.o.health.credentialsUnreachable(`could not check the ${this.forge} credentials: ${errorMessage(err)}`, this.o.now() + delay);
      this.o.log.warn({ err: errorMessage(err), retryInMs: delay }, `${this.forge} credential check failed`);
      if (this.o.health.credentialState !== 'ok') this.schedule(delay);
    }
  }

  private failed(reason: string): void {
    this.failures += 1;
    const delay = this.delay();
    this.o.health.credentialsRejected(reason, this.o.now() + delay);
    this.o.log.error({ reason, retryInMs: delay }, `${this.forge} credentials rejected: ${this.forge} work paused`);
    this.schedule(delay);
  }

  private get forge(): string {
    return this.o.health.forge;
  }

  private delay(): number {
    return Math.min(RECHECK_MAX_MS, RECHECK_FIRST_MS * 2 ** Math.max(0, this.failures - 1));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.checkNow(), ms);
    this.timer.unref();
  }
}
