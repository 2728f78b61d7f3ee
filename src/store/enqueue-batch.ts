import type { SourceRef } from '../flux/k8s-objects.js';
import type { QueueStore } from './queue-store.js';

interface Waiting {
  ref: SourceRef;
  now: number;
  eventAt: number | null;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for webhook intake: enqueues that arrive while one transaction is being written are
 * written together in the next one (one fsync for many events). Each caller's promise settles only
 * after its row is durable, so "202 only after the durable write" still holds.
 */
export class EnqueueBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly queue: QueueStore) {}

  enqueue(ref: SourceRef, now: number, eventAt: number | null): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ref, now, eventAt, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.scheduled = false;
    try {
      this.queue.enqueueMany(batch);
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    for (const w of batch) w.resolve();
  }
}
