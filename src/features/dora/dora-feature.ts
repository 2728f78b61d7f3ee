/**
 * The DORA figures as a feature: each outcome the spine records kept (`keepOutcomes`), the kind of each environment
 * published into noted before the publish, the commit-time reader over the forges that read commits (nudged after
 * each reconcile), the figures' cache `/metrics` and `/state` share (computed in a worker thread), and their sections.
 */
import { DoraCache } from './dora-cache.js';
import { countsForDora, type DoraFigures } from './dora.js';
import { matchesPattern } from '../../metadata/patterns.js';
import { CommitTimeStore } from './commit-time-store.js';
import { DoraStore, keepOutcomes } from './dora-store.js';
import { EnvironmentKinds } from './environment-kinds.js';
import { CommitTimes } from './commit-times.js';
import { DoraThread } from './dora-thread.js';
import { doraWindow, setDoraMetrics } from './dora-metrics.js';
import { doraPage, doraState } from './dora-section.js';
import type { Feature, FeatureDeps } from '../feature.js';
import { SCHEMA_VERSION } from '../schema.js';

/** The figures' settings. */
export interface DoraSettings {
  /** `DORA_ENVIRONMENTS`: patterns of environments counted besides production ones. */
  doraEnvironments: readonly string[];
}

/** Outcomes up to which the figures are computed on the event loop (about 3 µs each on a quiet machine: 15 ms at most, once a minute or per change). */
export const DORA_ON_LOOP_MAX = 5_000;

/** Where the figures are computed: on the loop up to `onLoopMax` outcomes, else in a thread ended `threadIdleMs` after its answer. */
export interface DoraTuning {
  onLoopMax?: number;
  threadIdleMs?: number;
}

/** The figures, always on (a `FeatureFactory`); `figures` and `thread()` let a test see where they were computed. */
export function doraFeature(
  o: FeatureDeps,
  { doraEnvironments: environments }: DoraSettings,
  tuning: DoraTuning = {},
): Feature & { figures: DoraCache; thread(): { started: number; running: boolean } } {
  const include = (e: string) => environments.some((p) => matchesPattern(p, e));
  keepOutcomes(o.db);
  const store = new CommitTimeStore(o.db);
  const commitTimes = new CommitTimes({
    store,
    forges: new Map(o.forges.flatMap((f) => (f.commits ? [[f.name, f.commits] as const] : []))),
    counts: (env) => countsForDora(env, include),
    onRead: (forge, result) => o.metrics.doraCommitTimeReads.inc({ forge, result }),
    log: o.log.child({ component: 'commit-times' }),
    now: o.now,
  });
  // Off the request path: a scrape reads the last figures; they are computed in a worker thread, started only for
  // many outcomes (a thread costs 7–10 MiB of the bridge's memory, even once ended; a few thousand outcomes take
  // milliseconds here) and ended when idle.
  const doraStore = new DoraStore(o.db);
  const figures = new DoraCache(doraStore, include);
  const thread = o.databasePath
    ? new DoraThread({ path: o.databasePath, version: SCHEMA_VERSION, environments }, tuning.threadIdleMs)
    : undefined;
  const compute =
    thread &&
    ((now: number) =>
      doraStore.outcomes() <= (tuning.onLoopMax ?? DORA_ON_LOOP_MAX)
        ? new Promise<readonly DoraFigures[]>((resolve) => resolve(doraWindow(doraStore, now, include)))
        : thread.compute(now));
  const log = o.log.child({ component: 'dora' });
  const kinds = new EnvironmentKinds(o.db, o.now);
  let failed = false;
  let shown: readonly DoraFigures[] | undefined;
  /** `/state`'s `dora.commitTimes`: how many are known, missing on their forge, failed (asked again), the last failure. */
  const commitTimesState = () => {
    const e = commitTimes.lastError;
    return { ...store.counts(), lastError: e ? { ...e, at: new Date(e.at).toISOString() } : null };
  };
  return {
    name: 'dora',
    hooks: {
      // What each published target's environment is (production, a preview): the figures count by it.
      beforePublish: ({ target }) => {
        kinds.note(target, { production: target.productionEnvironment, transient: target.transientEnvironment });
        return undefined;
      },
      // A reconcile may have recorded an outcome: the commit-time reader looks at once, not at its next interval.
      settle: () => commitTimes.nudge(),
    },
    state: {
      place: 'queue',
      fields: (now) => doraState(figures, now, commitTimesState),
      lists: ['dora.environments'],
    },
    page: { place: 'deployments', render: doraPage },
    scrape: () => {
      const shownNow = figures.figures(o.now());
      // The series are set again only when the figures were computed again (the cache gives the same array between changes).
      if (shownNow !== shown) setDoraMetrics(o.metrics, shownNow);
      shown = shownNow;
    },
    start: () => {
      commitTimes.start();
      // The figures' background look (at once, then on a change or a minute on).
      figures.start(o.now, undefined, compute, (error) => {
        // Logged once (each look tries again); /state's dora.computedAt shows the figures' age meanwhile.
        if (!failed) log.error({ err: error }, 'the DORA figures could not be computed; the last ones are shown');
        failed = true;
      });
    },
    figures,
    thread: () => ({ started: thread?.started ?? 0, running: thread?.running ?? false }),
    stop: async () => {
      commitTimes.stop();
      figures.stop();
      await thread?.stop();
    },
  };
}
