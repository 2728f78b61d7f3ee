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

/** No more than `count` content-generating requests in any `ms`. */
export interface LimitWindow {
  count: number;
  ms: number;
}

/**
 * GitHub's secondary limits on content-generating requests (POST, PATCH, PUT, DELETE), as its REST rate-limit
 * page documents them: "no more than 80 content-generating requests per minute and no more than 500
 * content-generating requests per hour", per account. `scale` compresses time (0.01: a minute lasts 0.6 s,
 * an hour 36 s) for benchmarks; retry-after is in the scaled seconds' real time.
 */
export const GITHUB_SECONDARY_WINDOWS: readonly LimitWindow[] = [
  { count: 80, ms: MINUTE_MS },
  { count: 500, ms: HOUR_MS },
];

/** Sliding windows of writes, kept per account (a token, an installation); every window must have room. */
export class WriteWindows {
  private readonly stamps = new Map<string, number[]>();
  private readonly windows: LimitWindow[];
  /** Writes refused with a secondary limit so far. */
  refused = 0;

  constructor(windows: readonly LimitWindow[], scale = 1) {
    this.windows = windows.map((w) => ({ count: w.count, ms: Math.max(1, Math.round(w.ms * scale)) }));
  }

  /** Counts one write of `account`; when a window is full, returns the seconds until it has room instead. */
  take(account = ''): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const t = Date.now();
    const longest = Math.max(...this.windows.map((w) => w.ms));
    const stamps = (this.stamps.get(account) ?? []).filter((s) => s > t - longest);
    this.stamps.set(account, stamps);
    let freeAt = 0;
    for (const w of this.windows) {
      const inside = stamps.filter((s) => s > t - w.ms);
      const oldest = inside[inside.length - w.count];
      if (inside.length >= w.count && oldest !== undefined) freeAt = Math.max(freeAt, oldest + w.ms);
    }
    if (freeAt > 0) {
      this.refused += 1;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - t) / 1000)) };
    }
    stamps.push(t);
    return { ok: true };
  }

  reset(): void {
    this.stamps.clear();
    this.refused = 0;
  }
}
