/**
 * The bridge's side of the DORA worker thread (`dora-worker.ts`): started for a computation, one computation at a
 * time (the cache asks for no second while one runs), and ended `idleMs` after its last answer when nothing more was
 * asked (issue 35: a live thread holds 10 MiB and more of the bridge's memory, and the figures are computed about
 * once a minute when nothing changes; starting one costs tens of milliseconds), or with the bridge. A thread that
 * fails to start or dies rejects what was asked; the next computation starts a new one.
 */
import { Worker } from 'node:worker_threads';
import type { DoraFigures } from './dora.js';
import type { DoraWorkerData } from './dora-worker.js';

// Built: dist/src/features/dora/dora-worker.js; under the tests' TypeScript loader, the .ts beside this file.
const WORKER = new URL(import.meta.url.endsWith('.ts') ? './dora-worker.ts' : './dora-worker.js', import.meta.url);

/** How long a thread waits for the next computation after answering before it is ended. */
export const DORA_THREAD_IDLE_MS = 1_000;

interface Asked {
  resolve: (figures: readonly DoraFigures[]) => void;
  reject: (error: Error) => void;
}

export class DoraThread {
  private worker: Worker | undefined;
  private next = 0;
  private readonly asked = new Map<number, Asked>();
  private idle: NodeJS.Timeout | undefined;
  /** Threads started so far (for tests and the logs of a benchmark). */
  started = 0;

  constructor(
    private readonly data: DoraWorkerData,
    private readonly idleMs = DORA_THREAD_IDLE_MS,
  ) {}

  /** The figures over the window ending `now`, computed in the thread. */
  readonly compute = (now: number): Promise<readonly DoraFigures[]> => {
    clearTimeout(this.idle);
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

  /** Whether a thread runs now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  async stop(): Promise<void> {
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('the bridge is stopping'));
    await worker?.terminate();
  }

  /** Ends the thread once `idleMs` passed with nothing asked; a computation asked before then keeps it. */
  private endWhenIdle(): void {
    clearTimeout(this.idle);
    if (this.asked.size > 0) return;
    this.idle = setTimeout(() => {
      const worker = this.worker;
      if (worker === undefined || this.asked.size > 0) return;
      this.worker = undefined;
      void worker.terminate();
    }, this.idleMs);
    this.idle.unref();
  }

  private spawn(): Worker {
    this.started++;
    const worker = new Worker(WORKER, { workerData: this.data });
    // The thread never holds the bridge's exit.
    worker.unref();
    worker.on('message', (m: { id: number; figures?: DoraFigures[]; error?: string }) => {
      const asked = this.asked.get(m.id);
      this.asked.delete(m.id);
      if (m.figures !== undefined) asked?.resolve(m.figures);
      else asked?.reject(new Error(m.error ?? 'no figures'));
      this.endWhenIdle();
    });
    // A thread ended because idle (or stopped) is no longer `this.worker`: what a newer one was asked stays asked.
    worker.on('error', (error: unknown) => {
      if (this.worker === worker) this.failAll(error instanceof Error ? error : new Error(String(error)));
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll(new Error(`the DORA thread ended (exit code ${code})`));
    });
    return worker;
  }

  private failAll(error: Error): void {
    for (const asked of this.asked.values()) asked.reject(error);
    this.asked.clear();
  }
}
