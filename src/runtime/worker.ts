import type { Logger } from 'pino';
import { cappedWait } from '../forges/forge-health.js';
import { longTimeout, type LongTimer } from '../common/timers.js';
import { errorMessage, waitsForTurn } from '../common/errors.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { QueueItem, QueueStore } from '../store/queue-store.js';
import type { StorageWrites } from '../store/storage-health.js';

/** First retry delay of a failed reconcile, doubled per attempt up to the cap (with ±25 % jitter). */
export const RETRY_BASE_MS = 2_000;
export const RETRY_CAP_MS = 5 * 60_000;
/** How soon the worker looks again after the queue could not be written (disk full, read-only, I/O error). */
export const STORE_RETRY_MS = 1_000;

/** Delay before retry number `attempts + 1`. */
export function retryDelay(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(attempts, 20));
  return Math.round(base * (0.75 + random() * 0.5));
}

export interface WorkerOptions {
  queue: QueueStore;
  /**
   * Runs one source; throws to retry it later (with backoff). Resolves to the delay in ms after which
   * the source runs again on its own (a rollout re-check, a cleanup grace), or undefined for none.
   */
  run: (item: QueueItem) => Promise<number | undefined>;
  concurrency: number;
  log: Logger;
  now: () => number;
  /**
   * Until when no work may start (every configured forge's credentials rejected), or null. A rate limit
   * does not stop the worker: it pauses one credential scope's requests, and a reconcile that meets it
   * fails at once without sending (ForgePaused, retried at the pause's end) while others go on.
   */
  pausedUntil?: () => number | null;
  /**
   * Hears of queue writes that failed and of ones that went through. `failed` returns a reason for a
   * storage failure (the worker keeps the result and retries the write), undefined for anything else (thrown).
   */
  storage?: StorageWrites;
}

const key = (r: SourceRef) => `${r.kind}/${r.namespace}/${r.name}`;

/**
 * Drains the durable queue with bounded concurrency. A source is never run twice at once (the queue
 * row is `active` while it runs); failures go back with backoff; `notify()` wakes it for new work.
 */
export class Worker {
  private readonly inflight = new Map<string, Promise<void>>();
  private timer: LongTimer | undefined;
  private running = false;
  private pumping = false;
  /** Sources whose outcome could not be written to the queue (their row is still `active`): due again once it can. */
  private readonly unsettled = new Map<string, { item: QueueItem; error: string }>();

  constructor(private readonly o: WorkerOptions) {}

  start(): void {
    this.o.queue.recover();
    this.running = true;
    this.notify();
  }

  /** New or due work may exist: look now. */
  notify(): void {
    if (!this.running || this.pumping) return;
    this.pumping = true;
    try {
      this.pump();
    } catch (err) {
      // The queue cannot be written now: keep serving, look again soon.
      if (this.o.storage?.failed('claim queued work', err) === undefined) throw err;
      this.retrySoon();
    } finally {
      this.pumping = false;
    }
  }

  private pump(): void {
    this.settleLeftovers();
    const paused = this.pausedUntil();
    if (paused !== null) {
      // Nothing starts while every forge's work is paused; the queue keeps every source for when it ends.
      this.timer?.clear();
      this.timer = longTimeout(() => this.notify(), paused - this.o.now());
      return;
    }
    const free = this.o.concurrency - this.inflight.size;
    if (free > 0) {
      for (const item of this.o.queue.claim(this.o.now(), free)) {
        const p = this.runOne(item).finally(() => {
          this.inflight.delete(key(item));
          setImmediate(() => this.notify());
        });
        this.inflight.set(key(item), p);
      }
    }
    this.schedule();
  }

  private pausedUntil(): number | null {
    const until = this.o.pausedUntil?.() ?? null;
    return until !== null && until > this.o.now() ? until : null;
  }

  /** Makes sources whose outcome could not be recorded pending again (a reconcile is safe to repeat). */
  private settleLeftovers(): void {
    for (const [k, { item, error }] of this.unsettled) {
      // Its row is still `active` (made pending), or was already completed (queued again).
      this.o.queue.fail(item, this.o.now(), error);
      this.o.queue.schedule(item, this.o.now());
      this.unsettled.delete(k);
      this.o.storage?.succeeded();
    }
  }

  private retrySoon(): void {
    this.timer?.clear();
    if (!this.running) return;
    this.timer = longTimeout(() => this.notify(), STORE_RETRY_MS);
  }

  private schedule(): void {
    this.timer?.clear();
    const due = this.o.queue.nextDue();
    if (due === null || !this.running) return;
    // Past Node's timer range a setTimeout fires at once: a forge's far Retry-After kept the idle bridge busy.
    this.timer = longTimeout(() => this.notify(), due - this.o.now());
  }

  private async runOne(item: QueueItem): Promise<void> {
    let record: () => void;
    try {
      const recheckInMs = await this.o.run(item);
      record = () => {
        this.o.queue.complete(item, this.o.now());
        // Still rolling out, or a cleanup waiting for its confirming read: look again on our own.
        if (recheckInMs !== undefined) this.o.queue.schedule(item, this.o.now() + recheckInMs);
      };
    } catch (err) {
      // Failed during a pause of all work (rejected credentials): due again when the pause ends. A failure that
      // names its time (a credential scope paused by a rate limit, a forge's Retry-After) is due then: not before,
      // and not later by a backoff its earlier pauses grew. Others back off.
      const now = this.o.now();
      const askedAt = askedRetryAt(err);
      const asked = askedAt === undefined ? undefined : cappedWait(askedAt, now);
      const retryAt = this.pausedUntil() ?? (asked !== undefined && asked > now ? asked : now + retryDelay(item.attempts));
      // Only waiting for its turn (a look-up's batch, the write budget): back then, not counted as a failed attempt.
      const turn = retryAt === asked && waitsForTurn(err);
      const fields = { fluxObject: key(item), attempt: item.attempts + (turn ? 0 : 1), retryInMs: retryAt - now, err: errorMessage(err) };
      if (turn) this.o.log.debug(fields, 'reconcile waits for its turn');
      else this.o.log.warn(fields, 'reconcile failed; will retry');
      record = () => this.o.queue.fail(item, retryAt, errorMessage(err), !turn);
    }
    try {
      record();
      this.o.storage?.succeeded();
    } catch (err) {
      const reason = this.o.storage?.failed('record a reconcile outcome', err);
      if (reason === undefined) throw err;
      // The row stays `active` (no other run claims it); once the queue takes writes it runs again.
      this.unsettled.set(key(item), { item, error: `its outcome could not be recorded: ${reason}` });
    }
  }

  /** Stops taking work and waits (bounded) for what runs now. */
  async stop(timeoutMs: number): Promise<void> {
    this.running = false;
    this.timer?.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inflight.values()]),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  get active(): number {
    return this.inflight.size;
  }
}

/** The latest time to come back that a failure (or one of its causes) carries, e.g. a forge's Retry-After. */
export function askedRetryAt(err: unknown): number | undefined {
  let latest: number | undefined;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const at = (e as { retryAt?: unknown }).retryAt;
    if (typeof at === 'number' && (latest === undefined || at > latest)) latest = at;
  }
  return latest;
}
