/**
 * The DORA figures' parts, built once for the composition root: the commit-time reader over the forges that read
 * commits, the environment kinds the router notes, the figures' cache `/metrics` and `/state` share, and `/state`'s
 * `dora.commitTimes`.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../common/metrics.js';
import type { Forge } from '../forges/forge.js';
import { DoraCache } from '../http/dora-cache.js';
import { doraWindow } from '../http/dora-metrics.js';
import { countsForDora, type DoraFigures } from '../lifecycle/dora.js';
import { matchesPattern } from '../metadata/patterns.js';
import type { Db } from '../store/database.js';
import { CommitTimeStore } from '../store/commit-time-store.js';
import { DoraStore } from '../store/dora-store.js';
import { EnvironmentKinds } from '../store/environment-kinds.js';
import { CommitTimes } from './commit-times.js';
import { DoraThread } from './dora-thread.js';

export interface DoraWiringOptions {
  db: Db;
  forges: readonly Pick<Forge, 'name' | 'commits'>[];
  /** `DORA_ENVIRONMENTS`: patterns of environments counted besides production ones. */
  environments: readonly string[];
  metrics: Metrics;
  log: Logger;
  now: () => number;
  /** The database file the figures' thread reads beside the bridge; none (`:memory:`, a dry run): computed on the loop. */
  databasePath?: string;
  /** Outcomes up to which the figures are computed on the loop rather than in the thread (`DORA_ON_LOOP_MAX`). */
  onLoopMax?: number;
  /** How long the thread waits for the next computation before it is ended (`DORA_THREAD_IDLE_MS`). */
  threadIdleMs?: number;
}

/** Outcomes up to which the figures are computed on the event loop (about 3 µs each on a quiet machine: 15 ms at most, once a minute or per change). */
export const DORA_ON_LOOP_MAX = 5_000;

export function buildDora(o: DoraWiringOptions) {
  const include = (e: string) => o.environments.some((p) => matchesPattern(p, e));
  const store = new CommitTimeStore(o.db);
  const commitTimes = new CommitTimes({
    store,
    forges: new Map(o.forges.flatMap((f) => (f.commits ? [[f.name, f.commits] as const] : []))),
    counts: (env) => countsForDora(env, include),
    onRead: (forge, result) => o.metrics.doraCommitTimeReads.inc({ forge, result }),
    log: o.log.child({ component: 'commit-times' }),
    now: o.now,
  });
  // Off the request path (issue 32): a scrape reads the last figures; they are computed in a worker thread, started
  // only for many outcomes (issue 35: a thread costs 7–10 MiB of the bridge's memory, even once ended; a few
  // thousand outcomes take milliseconds here) and ended when idle.
  const doraStore = new DoraStore(o.db);
  const figures = new DoraCache(doraStore, include);
  const thread = o.databasePath ? new DoraThread({ path: o.databasePath, environments: o.environments }, o.threadIdleMs) : undefined;
  const compute =
    thread &&
    ((now: number) =>
      doraStore.outcomes() <= (o.onLoopMax ?? DORA_ON_LOOP_MAX)
        ? new Promise<readonly DoraFigures[]>((resolve) => resolve(doraWindow(doraStore, now, include)))
        : thread.compute(now));
  const log = o.log.child({ component: 'dora' });
  let failed = false;
  return {
    commitTimes,
    kinds: new EnvironmentKinds(o.db, o.now),
    figures,
    /** Starts the figures' background look (at once, then on a change or a minute on). */
    start: () =>
      figures.start(o.now, undefined, compute, (error) => {
        // Logged once (each look tries again); /state's dora.computedAt shows the figures' age meanwhile.
        if (!failed) log.error({ err: error }, 'the DORA figures could not be computed; the last ones are shown');
        failed = true;
      }),
    stop: async () => {
      figures.stop();
      await thread?.stop();
    },
    /** The figures' threads started so far, and whether one runs now. */
    thread: () => ({ started: thread?.started ?? 0, running: thread?.running ?? false }),
    /** `/state`'s `dora.commitTimes`: how many are known, missing on their forge, failed (asked again), the last failure. */
    state: () => {
      const e = commitTimes.lastError;
      return { ...store.counts(), lastError: e ? { ...e, at: new Date(e.at).toISOString() } : null };
    },
  };
}
