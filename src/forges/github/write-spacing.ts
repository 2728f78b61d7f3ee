import { monotonicNow, sleep as longSleep } from '../../common/timers.js';

/** GitHub asks for at least a second between content-creating requests (REST API best practices). */
export const DEFAULT_WRITE_INTERVAL_MS = 1_000;

/**
 * Spaces GitHub writes at least `intervalMs` apart, in arrival order (`GITHUB_WRITE_INTERVAL`). createOctokit
 * sends every write through it (octokit's own throttler is off); one instance is shared by every client of the
 * process (token, App, each installation), so they draw from one pace. 0 turns the spacing off (tests and
 * benchmarks against the simulator). Waits on a timer only when a write must wait.
 */
export class WriteSpacing {
  /** The turn of the latest write asked for; each waits for the one before it. */
  private tail: Promise<void> = Promise.resolve();
  private lastRelease = Number.NEGATIVE_INFINITY;

  constructor(
    readonly intervalMs: number,
    // Monotonic: on the wall clock, one set back an hour held the next write for that hour (issue 32).
    private readonly now: () => number = monotonicNow,
    private readonly sleep: (ms: number) => Promise<void> = longSleep,
  ) {}

  /** As Bottleneck.Group's `key(id)`: every key shares one pace. */
  key(): this {
    return this;
  }

  /**
   * As Bottleneck's `schedule(options, fn)` (options unused): runs `fn` once its turn has come, measured from
   * the previous release. The release is the call of `fn`, made in the turn itself: what runs before the caller
   * resumes cannot bring two releases closer than the interval (so `fn` should send the write).
   */
  async schedule<T>(_options: unknown, fn: () => T | Promise<T>): Promise<T> {
    if (this.intervalMs <= 0) return fn();
    const turn = this.tail.then(async () => {
      const wait = this.lastRelease + this.intervalMs - this.now();
      if (wait > 0) await this.sleep(wait);
      this.lastRelease = this.now();
      // Boxed, so the turn ends at the release rather than when a promise `fn` returns settles.
      return { released: fn() };
    });
    // The next turn waits for this release only; a throwing `fn` does not stop it.
    this.tail = turn.then(
      () => undefined,
      () => undefined,
    );
    return (await turn).released;
  }
}
