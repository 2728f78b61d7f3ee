/**
 * The bridge's side of the DORA worker thread (`dora-worker.ts`): started at the first computation, one
 * computation at a time (the cache asks for no second while one runs), ended with the bridge. A thread that
 * fails to start or dies rejects what was asked; the next computation starts a new one.
 */
import { Worker } from 'node:worker_threads';
import type { DoraFigures } from './dora.js';
import type { DoraWorkerData } from './dora-worker.js';

// Built: dist/src/features/dora/dora-worker.js; under the tests' TypeScript loader, the .ts beside this file.
const WORKER = new URL(import.meta.url.endsWith('.ts') ? './dora-worker.ts' : './dora-worker.js', import.meta.url);

interface Asked {
  resolve: (figures: readonly DoraFigures[]) => void;
  reject: (error: Error) => void;
}

export class DoraThread {
  private worker: Worker | undefined;
  private next = 0;
  private readonly asked = new Map<number, Asked>();

  constructor(private readonly data: DoraWorkerData) {}

  /** The figures over the window ending `now`, computed in the thread. */
  readonly compute = (now: number): Promise<readonly DoraFigures[]> => {
    const worker = (this.worker ??= this.spawn());
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      worker.postMessage({ id, now });
    });
  };

  /** The thread's heap in use (bytes); none running (or not yet): 0. */
  async heapUsed(): Promise<number> {
    return (
      this.worker
        ?.getHeapStatistics()
        .then((h) => h.used_heap_size)
        .catch(() => 0) ?? 0
    );
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('the bridge is stopping'));
    await worker?.terminate();
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER, { workerData: this.data });
    // The thread never holds the bridge's exit.
    worker.unref();
    worker.on('message', (m: { id: number; figures?: DoraFigures[]; error?: string }) => {
      const asked = this.asked.get(m.id);
      this.asked.delete(m.id);
      if (m.figures !== undefined) asked?.resolve(m.figures);
      else asked?.reject(new Error(m.error ?? 'no figures'));
    });
    worker.on('error', (error: unknown) => {
      this.failAll(error instanceof Error ? error : new Error(String(error)));
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error(`the DORA thread ended (exit code ${code})`));
    });
    return worker;
  }

  private failAll(error: Error): void {
    for (const asked of this.asked.values()) asked.reject(error);
    this.asked.clear();
  }
}
