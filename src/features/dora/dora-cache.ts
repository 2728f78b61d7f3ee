/**
 * The DORA figures of the last 30 days, computed at most once per change of the recorded outcomes or per
 * minute (the window slides), and shared by `/metrics` and `/state`: a scrape or a read between changes
 * costs one cheap query, not a pass over every outcome.
 */
import type { DoraFigures, DoraOptions } from './dora.js';
import type { DoraStore } from './dora-store.js';
import { doraSummary, doraWindow } from './dora-metrics.js';
import { longTimeout, type LongTimer } from '../../common/timers.js';

/** How long figures stand while no outcome came or went: the window slides by at most this much before they are computed again. */
export const DORA_CACHE_MS = 60_000;

/** What the figures were computed from: the outcomes' version and the time. */
export interface Computed {
  version: string;
  at: number;
}

/** Whether figures computed at `c` still stand at `now` for outcomes at `version`: same outcomes, less than `maxAgeMs` old (a clock set back too). Pure. */
export function stillStands(c: Computed | undefined, version: string, now: number, maxAgeMs: number): boolean {
  return c !== undefined && c.version === version && now >= c.at && now - c.at < maxAgeMs;
}

/** Where the figures come from: the store's reader, and its version. */
export type DoraSource = Pick<DoraStore, 'facts' | 'since' | 'version'>;

/** How often the bridge's background look asks whether the outcomes changed (one cheap query; computed only then, or a minute on). */
export const DORA_LOOK_MS = 5_000;

/** Computes the figures over the window ending `now` elsewhere (a worker thread): the event loop never waits for it. */
export type ComputeFigures = (now: number) => Promise<readonly DoraFigures[]>;

/** The figures `/metrics` and `/state` show, kept between changes. */
export class DoraCache {
  private last: (Computed & { figures: readonly DoraFigures[]; summary?: ReturnType<typeof doraSummary> }) | undefined;
  private looking: LongTimer | undefined;
  private started = false;
  /** Whether a computation runs now (off the request path); a scrape meanwhile reads the last figures. */
  computing = false;

  constructor(
    private readonly store: DoraSource,
    private readonly include?: DoraOptions['include'],
    private readonly maxAgeMs = DORA_CACHE_MS,
  ) {}

  /**
   * Computes the figures off the request path from now on (issue 32): at once, then whenever a look every
   * `everyMs` finds the outcomes changed or the figures a minute old, at most one computation at a time, by
   * `compute` (the bridge's: a worker thread over its own connection, `dora-thread.ts`; without it, here).
   * `/metrics` and `/state` then read the last figures and never wait for a computation (none before the first: empty).
   * A failed computation keeps the last figures and is handed to `onError`; the next look tries again.
   */
  start(now: () => number, everyMs = DORA_LOOK_MS, compute?: ComputeFigures, onError?: (error: unknown) => void): void {
    this.started = true;
    const again = () => {
      if (this.started) this.looking = longTimeout(look, everyMs);
    };
    const look = () => {
      this.looking = undefined;
      const at = now();
      const version = this.store.version();
      if (compute === undefined || (this.last !== undefined && stillStands(this.last, version, at, this.maxAgeMs))) {
        this.compute(at, version);
        again();
        return;
      }
      this.computing = true;
      compute(at)
        .then(
          (figures) => {
            this.last = { version, at, figures };
          },
          (error: unknown) => onError?.(error),
        )
        .finally(() => {
          this.computing = false;
          again();
        });
    };
    look();
  }

  stop(): void {
    this.started = false;
    this.looking?.clear();
    this.looking = undefined;
  }

  /** When the figures shown were computed (ms), none yet: undefined. */
  computedAt(): number | undefined {
    return this.last?.at;
  }

  /** The figures over the window ending `now`: the same array as last time while they still stand; once started, the last computed. */
  figures(now: number): readonly DoraFigures[] {
    if (this.started) return this.last?.figures ?? [];
    return this.compute(now);
  }

  private compute(now: number, version = this.store.version()): readonly DoraFigures[] {
    if (this.last !== undefined && stillStands(this.last, version, now, this.maxAgeMs)) return this.last.figures;
    const figures = doraWindow(this.store, now, this.include);
    this.last = { version, at: now, figures };
    return figures;
  }

  /** `/state`'s `dora` of those figures, made once per computation (not per read: with `*`, one entry per environment). */
  summary(now: number): ReturnType<typeof doraSummary> {
    const figures = this.figures(now);
    const last = this.last;
    if (last?.figures !== figures) return doraSummary(figures);
    last.summary ??= doraSummary(figures);
    return last.summary;
  }
}
