/**
 * DORA at scrape time: what `/metrics` pays to compute the `gdb_dora_*` series from the database (the first
 * scrape after outcomes changed, or a minute on), what a scrape pays while they stand (the cache: one version
 * query), and the heap held meanwhile, with DEPLOYMENTS deployments (10,000 by default) recorded over 30 days through the
 * store's own write path: REPOSITORIES repositories (100), each in production and staging, one failure in
 * every 10 deployments, retried to success; PREVIEWS (0.5 by default) of the deployments go to previews (`pr-<n>`,
 * marked transient), never counted (issue 32: read whole, 500,000 outcomes ran the bridge out of heap). Then as the
 * bridge computes them (issue 32): in the worker thread, with a scrape every 5 ms meanwhile (how long each waited).
 *   DEPLOYMENTS=10000 node dist/bench/dora-scrape.js      (needs `npx tsc -p .` first)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMetrics } from '../src/common/metrics.js';
import { DoraCache } from '../src/features/dora/dora-cache.js';
import { doraWindow, setDoraMetrics } from '../src/features/dora/dora-metrics.js';
import { DoraThread } from '../src/features/dora/dora-thread.js';
import { DeploymentStore } from '../src/store/deployment-store.js';
import { DoraStore, keepOutcomes } from '../src/features/dora/dora-store.js';
import { TransientEnvironmentStore } from '../src/store/transient-store.js';
import { record, shopDeployment } from '../test/harness/recorded-deployments.js';
import { openDatabase } from '../test/harness/database.js';
import { SCHEMA_VERSION } from '../src/features/schema.js';

const DEPLOYMENTS = Number(process.env.DEPLOYMENTS ?? 10_000);
const REPOSITORIES = Number(process.env.REPOSITORIES ?? 100);
const PREVIEWS = Number(process.env.PREVIEWS ?? 0.5);
const RUNS = 7;
const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 11, 2);

const dir = mkdtempSync(join(tmpdir(), 'gdb-bench-dora-'));
try {
  const db = openDatabase(join(dir, 'bridge.db'));
  const store = new DeploymentStore(keepOutcomes(db));
  const transient = new TransientEnvironmentStore(db);
  const step = (30 * DAY_MS) / DEPLOYMENTS;
  db.transaction(() => {
    for (let i = 0; i < DEPLOYMENTS; i++) {
      const start = NOW - 30 * DAY_MS + i * step;
      const preview = (i % 100) / 100 < PREVIEWS;
      const repo = `repo-${i % REPOSITORIES}`;
      const environment = preview ? `pr-${i % 50}` : i % 2 === 0 ? 'production' : 'staging';
      if (preview) transient.mark({ forge: 'github', owner: 'acme', repo, environment }, start);
      const who = shopDeployment('a', {
        repo,
        environment,
        sha: i.toString(16).padStart(40, '0'),
      });
      if (i % 10 === 0) record(store, who, start, ['failure', start + step / 3], ['success', start + step / 2]);
      else record(store, who, start, ['success', start + step / 2]);
    }
  })();
  const dora = new DoraStore(db);
  const include = (e: string) => e === 'staging';
  const metrics = createMetrics();
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  /** RUNS timings of `scrape`, sorted. */
  const timed = (scrape: () => void): number[] => {
    const times: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t0 = performance.now();
      scrape();
      times.push(performance.now() - t0);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }
    return times.sort((a, b) => a - b);
  };
  // Computed: what every scrape paid before the cache, and what the first one after a change pays now.
  const computed = timed(() => setDoraMetrics(metrics, doraWindow(dora, NOW, include)));
  const cache = new DoraCache(dora, include);
  cache.figures(NOW);
  const cached = timed(() => {
    const figures = cache.figures(NOW);
    if (figures.length === 0) throw new Error('no figures');
  });
  // Issue 32, as the bridge runs: computed in the worker thread; meanwhile a scrape every 5 ms, timed from when it
  // was due (the event loop's delay included) to its answer.
  const thread = new DoraThread({ path: join(dir, 'bridge.db'), version: SCHEMA_VERSION, environments: ['staging'] });
  const background = new DoraCache(dora, include);
  const waits: number[] = [];
  let threadHeap = 0;
  let shown: readonly unknown[] | undefined;
  global.gc?.();
  const mainBefore = process.memoryUsage().heapUsed;
  let mainPeak = mainBefore;
  const c0 = performance.now();
  background.start(
    () => NOW,
    60_000,
    thread.compute,
    (e) => {
      throw e;
    },
  );
  while (background.computing) {
    const due = performance.now() + 5;
    await new Promise((resolve) => setTimeout(resolve, 5));
    // As /metrics does (status-routes.ts): the series set again only when the figures are new.
    const figures = background.figures(NOW);
    if (figures !== shown) setDoraMetrics(metrics, figures);
    shown = figures;
    waits.push(performance.now() - due);
    threadHeap = Math.max(threadHeap, await thread.heapUsed());
    mainPeak = Math.max(mainPeak, process.memoryUsage().heapUsed);
  }
  const computeMs = performance.now() - c0;
  background.stop();
  await thread.stop();
  if (background.figures(NOW).length === 0) throw new Error('no figures from the thread');
  waits.sort((a, b) => a - b);
  const outcomes = (db.prepare('SELECT COUNT(*) AS n FROM deployment_outcomes').get() as { n: number }).n;
  const ms = (n: number | undefined) => `${(n ?? NaN).toFixed(n !== undefined && n < 1 ? 2 : 1)} ms`;
  const spread = (times: number[]) => `min ${ms(times[0])}, median ${ms(times[Math.floor(RUNS / 2)])}, max ${ms(times.at(-1))}`;
  process.stdout.write(
    `dora scrape: ${DEPLOYMENTS} deployments (${outcomes} outcomes, ${REPOSITORIES} repositories, production and staging, ${Math.round(PREVIEWS * 100)} % previews), ${RUNS} runs each: ` +
      `computed ${spread(computed)}; cached (outcomes unchanged, within the minute) ${spread(cached)}; ` +
      `in the thread: computed in ${ms(computeMs)}, ${waits.length} scrapes meanwhile waited p99 ${ms(waits[Math.floor(waits.length * 0.99)])}, max ${ms(waits.at(-1))}, thread heap ${(threadHeap / 1024 / 1024).toFixed(1)} MiB at most, the bridge's heap meanwhile +${((mainPeak - mainBefore) / 1024 / 1024).toFixed(1)} MiB; ` +
      `computed here: heap +${((heapPeak - heapBefore) / 1024 / 1024).toFixed(1)} MiB at most\n`,
  );
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
