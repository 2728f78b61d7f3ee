import type { Logger } from 'pino';
import { errorMessage } from '../common/errors.js';
import type { Pruned } from '../store/retention.js';
import type { StorageWrites } from '../store/storage-health.js';

/** How often the database is pruned of rows without a purpose (retention.ts); once at start too. */
export const PRUNE_INTERVAL_MS = 60 * 60_000;

export interface PruningOptions {
  /** One prune (pruneStorage over the bridge's database and clock, with the features' steps). */
  prune: () => Pruned;
  intervalMs?: number;
  /** Told how many rows of each table went (metrics). */
  onPruned?: (pruned: Pruned) => void;
  storage?: StorageWrites;
  log: Logger;
}

/** The one place the runtime prunes the database: at start, then every interval, never two at once (it is synchronous). */
export class Pruning {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: PruningOptions) {}

  start(): void {
    this.runOnce();
    this.timer = setInterval(() => this.runOnce(), this.o.intervalMs ?? PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One prune; a failing database is reported to the storage tracker and tried again next time. */
  runOnce(): Pruned | undefined {
    let pruned: Pruned;
    try {
      pruned = this.o.prune();
      this.o.storage?.succeeded();
    } catch (err) {
      const reason = this.o.storage?.failed('prune old rows', err);
      this.o.log.warn({ err: reason ?? errorMessage(err) }, 'could not prune old rows; trying again later');
      return undefined;
    }
    this.o.onPruned?.(pruned);
    const removed = Object.fromEntries(Object.entries(pruned).filter(([, n]) => n > 0));
    if (Object.keys(removed).length > 0) this.o.log.info({ removed }, 'pruned rows without a purpose');
    return pruned;
  }
}
