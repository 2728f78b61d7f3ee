import type { Logger } from 'pino';
import { longTimeout, type LongTimer } from '../common/timers.js';
import { failureReason } from '../common/errors.js';
import type { ForgeHealth } from './forge-health.js';

/** Wait before checking rejected (or unreachable) credentials again; doubled per failure up to the cap. */
export const RECHECK_FIRST_MS = 60_000;
export const RECHECK_MAX_MS = 10 * 60_000;

export interface CredentialMonitorOptions {
  /** The forge's credential check (GitHub: `GET /rate_limit` or `GET /app`); answers a problem that stops the work, or undefined. Throws on failure. */
  check: () => Promise<string | undefined>;
  health: ForgeHealth;
  /** The rejection a failed check means (a 401), or undefined for a failure to reach the forge. */
  unauthorized: (err: unknown) => string | undefined;
  log: Logger;
  now: () => number;
}

/**
 * Checks a forge's credentials at start and after every 401: while the forge rejects them, readiness
 * says why and the forge's work is paused; the check repeats with backoff and work resumes when it passes.
 * The first check after a 401 runs at once: the rejected token was dropped, so the next one is fresh.
 */
export class CredentialMonitor {
  private timer: LongTimer | undefined;
  private running: Promise<void> | undefined;
  private failures = 0;
  private lastCheck = -Infinity;
  private stopped = false;

  constructor(private readonly o: CredentialMonitorOptions) {}

  /** The first check; returns when it is done (callers need not wait). */
  start(): Promise<void> {
    return this.checkNow();
  }

  /** A request was answered 401: stop the forge's work and check again (now, unless a check just ran). */
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
    this.timer?.clear();
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
      this.timer?.clear();
      const was = this.o.health.credentialState;
      this.o.health.credentialsOk();
      if (was !== 'ok') this.o.log.info(`${this.forge} credentials accepted`);
    } catch (err) {
      const rejected = this.o.unauthorized(err);
      if (rejected !== undefined) {
        this.failed(rejected);
        return;
      }
      this.failures += 1;
      const delay = this.delay();
      this.o.health.credentialsUnreachable(`could not check the ${this.forge} credentials: ${failureReason(err)}`, this.o.now() + delay);
      this.o.log.warn({ err: failureReason(err), retryInMs: delay }, `${this.forge} credential check failed`);
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
    this.timer?.clear();
    this.timer = longTimeout(() => void this.checkNow(), ms);
  }
}
