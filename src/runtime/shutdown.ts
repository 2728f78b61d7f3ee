/** The stop on SIGTERM or SIGINT: once, bounded by a timer, the last log lines flushed, then the exit. */
import type { Logger } from 'pino';

/** How long shutdown waits for in-flight reconciles (and their forge writes) to finish. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** Time on top of the grace for closing the server and the database before exiting anyway. */
const SHUTDOWN_EXTRA_MS = 5_000;

/** The bridge's stop: whether it began (the webhook answers 503 meanwhile), and what runs on the first SIGTERM or SIGINT. */
export class Shutdown {
  stopping = false;

  /** Runs `stop` on the first SIGTERM or SIGINT (registered once everything it stops is built). */
  onSignals(log: Logger, stop: () => Promise<void>): void {
    const shutdown = async (signal: string) => {
      if (this.stopping) return;
      this.stopping = true;
      // Whatever hangs, the process ends: the queue is durable, the next start finishes the work.
      setTimeout(() => {
        log.error('shutdown took too long; exiting');
        process.exit(1);
      }, SHUTDOWN_GRACE_MS + SHUTDOWN_EXTRA_MS).unref();
      log.info({ signal }, 'shutting down: finishing in-flight work');
      await stop();
      log.info('stopped');
      // The last lines out (a broken pipe calls back at once; a stuck one is bounded by the timer above).
      await new Promise<void>((resolve) => log.flush(() => resolve()));
      process.exit(0);
    };
    process.once('SIGTERM', (s) => void shutdown(s));
    process.once('SIGINT', (s) => void shutdown(s));
  }
}
