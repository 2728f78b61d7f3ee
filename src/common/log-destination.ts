import { write, writeSync } from 'node:fs';

/** After EAGAIN (a full pipe whose reader is slow): how long to wait before writing again, on a timer. */
const RETRY_MS = 100;
/** Past this many queued bytes (a reader that stopped reading), new lines are dropped rather than queued. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** The stream pino writes its lines to: never blocks the main thread, whatever happens to the reader. */
export interface LogDestination {
  write(line: string): void;
  /** Calls back once every queued line is written, or the destination is broken (pino's `logger.flush`). */
  flush(cb?: (err?: Error) => void): void;
  /** True once a write failed for good (EPIPE: the reader is gone): later lines are dropped. */
  readonly broken: boolean;
}

/**
 * A log destination on a file descriptor that writes asynchronously and gives up on the first error other
 * than EAGAIN. pino's default destination (sonic-boom) retries a failed write every 100 ms in a blocking
 * loop when the process exits with lines queued: with stdout's reader gone (EPIPE), that loop never ends
 * and the process ignores SIGTERM. Here a broken pipe loses the lines after it; the process still stops.
 */
export function logDestination(fd: number): LogDestination {
  let queue: string[] = [];
  let queuedBytes = 0;
  let writing = false;
  let broken = false;
  const waiters: Array<(err?: Error) => void> = [];

  const settle = () => {
    if (writing || (queue.length > 0 && !broken)) return;
    for (const cb of waiters.splice(0)) cb();
  };
  const writeOut = (buf: Buffer) =>
    write(fd, buf, 0, buf.length, null, (err, n) => {
      if (err?.code === 'EAGAIN') {
        setTimeout(() => writeOut(buf), RETRY_MS).unref();
      } else if (err) {
        broken = true;
        queue = [];
        queuedBytes = 0;
        writing = false;
        settle();
      } else if (n < buf.length) {
        writeOut(buf.subarray(n));
      } else {
        next();
      }
    });
  const next = () => {
    if (broken || queue.length === 0) {
      writing = false;
      settle();
      return;
    }
    writing = true;
    const buf = Buffer.from(queue.join(''), 'utf8');
    queue = [];
    queuedBytes = 0;
    writeOut(buf);
  };
  // Lines logged just before process.exit: one synchronous attempt, no retry, nothing while a write is stuck.
  process.once('exit', () => {
    if (broken || writing || queue.length === 0) return;
    try {
      writeSync(fd, queue.join(''));
    } catch {
      /* the reader is gone: the lines are lost */
    }
  });
  return {
    write(line) {
      if (broken || queuedBytes + line.length > MAX_QUEUED_BYTES) return;
      queue.push(line);
      queuedBytes += line.length;
      if (!writing) next();
    },
    flush(cb) {
      if (cb) waiters.push(cb);
      settle();
    },
    get broken() {
      return broken;
    },
  };
}
