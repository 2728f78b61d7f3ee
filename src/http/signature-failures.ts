/**
 * Failed webhook signatures per client address (issue 32): counted and checked before any HMAC work, so a flood of
 * bad signatures from one address costs a map lookup per request once its budget is spent, not a digest of the body.
 */

/** Addresses remembered in one window at most; past it the window starts again (a flood of many addresses is bounded too). */
export const MAX_ADDRESSES = 50_000;

/** Fixed windows of `windowMs` on a monotonic clock; `max` failed signatures per address in each. */
export class SignatureFailures {
  private failed = new Map<string, number>();
  private windowStart: number;

  constructor(private readonly o: { max: number; windowMs: number; now: () => number }) {
    this.windowStart = o.now();
  }

  /** Milliseconds until the address may be heard again when it spent its budget, else undefined. */
  refusedFor(address: string): number | undefined {
    const now = this.roll();
    if ((this.failed.get(address) ?? 0) < this.o.max) return undefined;
    return Math.max(0, this.windowStart + this.o.windowMs - now);
  }

  /** A request from the address failed verification. */
  fail(address: string): void {
    this.roll();
    if (this.failed.size >= MAX_ADDRESSES && !this.failed.has(address)) this.failed.clear();
    this.failed.set(address, (this.failed.get(address) ?? 0) + 1);
  }

  private roll(): number {
    const now = this.o.now();
    if (now - this.windowStart >= this.o.windowMs || now < this.windowStart) {
      this.failed.clear();
      this.windowStart = now;
    }
    return now;
  }
}
