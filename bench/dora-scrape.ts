/**
 * DORA at scrape time: what `/metrics` pays to compute the `gdb_dora_*` series from the database, and the
 * heap it holds meanwhile, with DEPLOYMENTS deployments (10,000 by default) recorded over 30 days through the
 * store's own write path: REPOSITORIES repositories (100), each in production and staging, one failure in
 * every 10 deployments, retried to success.
 *   DEPLOYMENTS=10000 node dist/bench/dora-scrape.js      (needs `npx tsc -p .` first)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMetrics } from '../src/common/metrics.js';
import { setDoraMetrics } from '../src/http/dora-metrics.js';
import { openDatabase } from '../src/store/database.js';
import { DeploymentStore } from '../src/store/deployment-store.js';
import { DoraStore } from '../src/store/dora-store.js';
import { record, shopDeployment } from '../test/harness/recorded-deployments.js';

const DEPLOYMENTS = Number(process.env.DEPLOYMENTS ?? 10_000);
const REPOSITORIES = Number(process.env.REPOSITORIES ?? 100);
const RUNS = 7;
const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 11, 2);

const dir = mkdtempSync(join(tmpdir(), 'gdb-bench-dora-'));
try {
  const db = openDatabase(join(dir, 'bridge.db'));
  const store = new DeploymentStore(db);
  const step = (30 * DAY_MS) / DEPLOYMENTS;
  db.transaction(() => {
    for (let i = 0; i < DEPLOYMENTS; i++) {
      const start = NOW - 30 * DAY_MS + i * step;
      const who = shopDeployment('a', {
        repo: `repo-${i % REPOSITORIES}`,
        environment: i % 2 === 0 ? 'production' : 'staging',
        sha: i.toString(16).padStart(40, '0'),
      });
      if (i % 10 === 0) record(store, who, start, ['failure', start + step / 3], ['success', start + step / 2]);
      else record(store, who, start, ['success', start + step / 2]);
    }
  })();
  const dora = new DoraStore(db);
  const metrics = createMetrics();
  const times: number[] = [];
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    setDoraMetrics(metrics, dora, NOW, (e) => e === 'staging');
    times.push(performance.now() - t0);
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }
  const outcomes = (db.prepare('SELECT COUNT(*) AS n FROM deployment_outcomes').get() as { n: number }).n;
  times.sort((a, b) => a - b);
  const ms = (n: number | undefined) => `${(n ?? NaN).toFixed(1)} ms`;
  process.stdout.write(
    `dora scrape: ${DEPLOYMENTS} deployments (${outcomes} outcomes, ${REPOSITORIES} repositories, 2 environments), ${RUNS} runs: ` +
      `min ${ms(times[0])}, median ${ms(times[Math.floor(RUNS / 2)])}, max ${ms(times.at(-1))}; ` +
      `heap +${((heapPeak - heapBefore) / 1024 / 1024).toFixed(1)} MiB at most\n`,
  );
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
