import t from 'tap';
import { createMetrics } from '../../../src/common/metrics.js';
import { DORA_WINDOW_MS, doraWindow, setDoraMetrics, totalsByEnvironment } from '../../../src/features/dora/dora-metrics.js';
import type { DeploymentFact } from '../../../src/features/dora/dora.js';
import { doraFigures } from '../../../src/features/dora/dora.js';

const H = 3_600_000;
const NOW = 100 * 24 * H;

function fact(repository: string, sha: string, rest: Partial<DeploymentFact>): DeploymentFact {
  return {
    forge: 'github',
    repository,
    environment: 'production',
    sha,
    commitAt: null,
    startedAt: NOW - 10 * H,
    succeededAt: null,
    failedAt: null,
    cluster: null,
    superseded: false,
    production: false,
    transient: false,
    ...rest,
  };
}

/** Two repositories in production, one in a preview, one in staging. */
const FACTS: DeploymentFact[] = [
  fact('acme/shop', 'a', { commitAt: NOW - 12 * H, succeededAt: NOW - 9 * H }),
  fact('acme/shop', 'b', { startedAt: NOW - 8 * H, failedAt: NOW - 7 * H }),
  fact('acme/shop', 'c', { startedAt: NOW - 6 * H, commitAt: NOW - 5 * H, succeededAt: NOW - 6 * H }),
  fact('acme/api', 'x', { succeededAt: NOW - 2 * H }),
  fact('acme/api', 'p', { environment: 'pr-7', transient: true, succeededAt: NOW - H }),
  fact('acme/api', 's', { environment: 'staging', succeededAt: NOW - H }),
];
const store = (facts: DeploymentFact[], since: number | undefined) => ({ facts: () => facts, since: () => since });

/** The value of one series in the exposition text; undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

t.test('the totals sum repositories per forge and environment', (t) => {
  const totals = totalsByEnvironment(doraFigures(FACTS, { now: NOW, windowMs: DORA_WINDOW_MS, rollbackWindowMs: 24 * H }));
  t.same(
    totals.map((x) => [x.forge, x.environment, x.deployments, x.failedChanges]),
    [['github', 'production', 4, 1]],
    'the preview and staging are not counted',
  );
  t.end();
});

t.test('the series: bounded labels, no repository, histograms in seconds, clamped skew counted', async (t) => {
  const metrics = createMetrics();
  setDoraMetrics(metrics, doraWindow(store(FACTS, NOW - DORA_WINDOW_MS), NOW));
  const text = await metrics.registry.metrics();
  const l = '{forge="github",environment="production"}';
  t.equal(sample(text, `gdb_dora_deployments_per_day${l}`), 3 / 30, 'three successes over 30 days');
  t.equal(sample(text, `gdb_dora_change_failure_ratio${l}`), 0.25);
  t.equal(sample(text, `gdb_dora_lead_time_clamped${l}`), 1, 'c was "committed" after its rollout');
  t.equal(sample(text, 'gdb_dora_lead_time_seconds_count{forge="github",environment="production"}'), 2);
  t.equal(sample(text, 'gdb_dora_lead_time_seconds_sum{forge="github",environment="production"}'), 3 * 3600, '3 hours and 0');
  t.equal(sample(text, 'gdb_dora_lead_time_seconds_bucket{le="60",forge="github",environment="production"}'), 1, 'the clamped 0');
  t.equal(
    sample(text, 'gdb_dora_time_to_restore_seconds_sum{forge="github",environment="production"}'),
    3600,
    'b failed, c succeeded an hour later',
  );
  t.notMatch(text, /gdb_dora_[a-z_]+\{[^}]*repository/, 'no repository label');
  t.notMatch(text, /environment="(pr-7|staging)"/, 'previews and unlisted environments have no series');
  t.end();
});

t.test('what cannot be known has no series; a new scrape replaces the last one', async (t) => {
  const metrics = createMetrics();
  setDoraMetrics(metrics, doraWindow(store(FACTS, NOW - DORA_WINDOW_MS), NOW));
  setDoraMetrics(metrics, doraWindow(store([fact('acme/shop', 'a', { succeededAt: NOW - H })], NOW), NOW));
  const text = await metrics.registry.metrics();
  t.notMatch(text, /^gdb_dora_deployments_per_day\{/m, 'a history that starts now: no rate, not 0');
  t.notMatch(text, /^gdb_dora_change_failure_ratio\{/m, 'no finished deployment in a window of no length');
  t.notMatch(text, /^gdb_dora_lead_time_seconds_count\{/m, 'no commit time: no lead time, and the last scrape is gone');
  setDoraMetrics(metrics, doraWindow(store([], undefined), NOW));
  t.notMatch(await metrics.registry.metrics(), /^gdb_dora_\w+\{/m, 'an empty database: no series at all');
  t.end();
});

t.test('other environments by pattern', async (t) => {
  const metrics = createMetrics();
  setDoraMetrics(
    metrics,
    doraWindow(store(FACTS, NOW - DORA_WINDOW_MS), NOW, (e) => e === 'staging'),
  );
  t.equal(sample(await metrics.registry.metrics(), 'gdb_dora_deployments_per_day{forge="github",environment="staging"}'), 1 / 30);
  t.end();
});
