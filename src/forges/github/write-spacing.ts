/** GitHub asks for at least a second between content-creating requests (REST API best practices). */
export const DEFAULT_WRITE_INTERVAL_MS = 1_000;

/**
 * Spaces GitHub writes at least `intervalMs` apart, in arrival order (`GITHUB_WRITE_INTERVAL`). createOctokit
 * sends every write through it instead of the throttler's own write group (which spaces them 1 s apart); one
 * instance is shared by every client of the process (token, App, each installation), so they draw from one
 * pace. 0 turns the spacing off (tests and benchmarks against the simulator).
 */
export class WriteSpacing {
  /** The turn of the latest write asked for; each waits for the one before it. */
  private tail: Promise<void> = Promise.resolve();
  private lastRelease = Number.NEGATIVE_INFINITY;

  constructor(
    readonly intervalMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** As Bottleneck.Group's `key(id)`: every key shares one pace. */
  key(): this {
    return this;
  }

  /** As Bottleneck's `schedule(options, fn)` (options unused): runs `fn` once its turn has come, measured from the previous release. */
  async schedule<T>(_options: unknown, fn: () => T | Promise<T>): Promise<T> {
    if (this.intervalMs <= 0) return fn();
    const turn = this.tail.then(async () => {
      const wait = this.lastRelease + this.intervalMs - this.now();
      if (wait > 0) await this.sleep(wait);
      this.lastRelease = this.now();
    });
    this.tail = turn;
    await turn;
    return fn();
  }
}
