/**
 * Time inside the process (issue 32): a delay longer than Node's timer range (2^31 - 1 ms, about 24.8 days) fires at
 * once (RESYNC_INTERVAL=600h listed every Flux object 1,200 times a second), so every timer whose delay comes from a
 * setting or a forge goes through `longTimeout`, which waits the whole delay in steps; and intervals measured inside
 * the process use the monotonic clock, so a wall clock set back an hour stalls nothing for an hour.
 */
import { performance } from 'node:perf_hooks';

/** The longest delay Node's setTimeout keeps; a longer one (or a non-finite one) fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Milliseconds on a clock that never goes back (performance.now): for intervals, never for dates. */
export const monotonicNow = (): number => performance.now();

/** A pending `longTimeout`: `clear()` cancels it (also between its steps). */
export interface LongTimer {
  clear(): void;
}

/**
 * Calls `fn` once after `ms` (negative or NaN: at once; Infinity: never), however long: past MAX_TIMER_MS it waits
 * in steps on the monotonic clock. Unreferenced by default (a pending wait never keeps the process alive).
 */
export function longTimeout(fn: () => void, ms: number, o: { ref?: boolean } = {}): LongTimer {
  const due = monotonicNow() + (Number.isNaN(ms) ? 0 : Math.max(0, ms));
  let timer: NodeJS.Timeout | undefined;
  let cleared = false;
  const arm = () => {
    const left = due - monotonicNow();
    if (left === Infinity) return;
    const step = () => {
      if (cleared) return;
      if (left > MAX_TIMER_MS) arm();
      else fn();
    };
    timer = setTimeout(step, Math.min(Math.max(0, left), MAX_TIMER_MS));
    if (o.ref !== true) timer.unref();
  };
  arm();
  return {
    clear: () => {
      cleared = true;
      clearTimeout(timer);
    },
  };
}

/** A promise resolved after `ms` (through `longTimeout`). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => longTimeout(resolve, ms, { ref: true }));
}
