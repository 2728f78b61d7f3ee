/**
 * GitHub's two rate limits: the primary hourly request budget (x-ratelimit-* headers on every
 * answer) and a secondary limit on writes per minute (sliding window).
 */

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** The hourly request budget of the `core` resource. */
export class PrimaryLimit {
  private used = 0;
  private resetAt: number;

  constructor(private readonly limit: number) {
    this.resetAt = Date.now() + HOUR_MS;
  }

  /** Counts one request; false when the budget is spent. */
  take(): boolean {
    this.roll();
    if (this.used >= this.limit) return false;
    this.used += 1;
    return true;
  }

  headers(): Record<string, string> {
    this.roll();
    return {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, this.limit - this.used)),
      'x-ratelimit-used': String(this.used),
      'x-ratelimit-reset': String(Math.ceil(this.resetAt / 1000)),
      'x-ratelimit-resource': 'core',
    };
  }

  /** The body of GET /rate_limit. */
  body(): Record<string, unknown> {
    this.roll();
    const core = {
      limit: this.limit,
      used: this.used,
      remaining: Math.max(0, this.limit - this.used),
      reset: Math.ceil(this.resetAt / 1000),
    };
    const idle = (limit: number) => ({ limit, used: 0, remaining: limit, reset: core.reset });
    return { resources: { core, search: idle(30), graphql: idle(5000), integration_manifest: idle(5000) }, rate: core };
  }

  reset(): void {
    this.used = 0;
    this.resetAt = Date.now() + HOUR_MS;
  }

  private roll(): void {
    if (Date.now() >= this.resetAt) this.reset();
  }
}

/** At most `perMinute` writes in any 60 s window. */
export class WriteWindow {
  private stamps: number[] = [];

  constructor(private readonly perMinute: number) {}

  /** Counts one write; when the window is full, returns the seconds to wait instead. */
  take(): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const t = Date.now();
    this.stamps = this.stamps.filter((s) => s > t - MINUTE_MS);
    const oldest = this.stamps[0];
    if (this.stamps.length >= this.perMinute && oldest !== undefined) {
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + MINUTE_MS - t) / 1000)) };
    }
    this.stamps.push(t);
    return { ok: true };
  }

  reset(): void {
    this.stamps = [];
  }
}
