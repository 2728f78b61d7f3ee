/** `GET /metrics` of a real app over a real database: the `gdb_dora_*` series from what the store recorded. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import t from 'tap';
import { createMetrics } from '../../../src/common/metrics.js';
import { doraFeature } from '../../../src/features/dora/dora-feature.js';
import { buildApp } from '../../../src/http/http-app.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { keepOutcomes } from '../../../src/features/dora/dora-store.js';
import { QueueStore } from '../../../src/store/queue-store.js';
import { SourceStore } from '../../../src/store/source-store.js';
import { IDLE_APP } from '../../harness/idle-app.js';
import { record, shopDeployment } from '../../harness/recorded-deployments.js';
import { openDatabase } from '../../harness/database.js';

const H = 3_600_000;
const NOW = Date.UTC(2026, 11, 2);

t.test('the scrape: production and DORA_ENVIRONMENTS counted, other environments not', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-dora-scrape-'));
  const db = openDatabase(join(dir, 'bridge.db'));
  const deployments = new DeploymentStore(keepOutcomes(db));
  record(deployments, shopDeployment('a'), NOW - 10 * H, ['failure', NOW - 9 * H]);
  record(deployments, shopDeployment('b'), NOW - 8 * H, ['success', NOW - 7 * H]);
  record(deployments, shopDeployment('c', { environment: 'qa-1' }), NOW - 8 * H, ['success', NOW - 7 * H]);
  record(deployments, shopDeployment('d', { environment: 'dev' }), NOW - 8 * H, ['success', NOW - 7 * H]);
  const metrics = createMetrics();
  const log = pino({ level: 'silent' });
  const now = () => NOW;
  const app = await buildApp({
    webhookKey: Buffer.from('k'),
    queue: new QueueStore(db),
    deployments,
    sources: new SourceStore(db),
    metrics,
    log,
    now,
    ...IDLE_APP,
    sections: [doraFeature({ db, forges: [], metrics, log, now, dryRun: false, cluster: 'test' }, { doraEnvironments: ['qa-*'] })],
  });
  t.teardown(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(text, /^gdb_dora_change_failure_ratio\{forge="github",environment="production"\} 0\.5$/m);
  t.match(text, /^gdb_dora_time_to_restore_seconds_sum\{forge="github",environment="production"\} 7200$/m);
  t.match(text, /^gdb_dora_deployments_per_day\{forge="github",environment="qa-1"\} \d/m, 'DORA_ENVIRONMENTS adds qa-1');
  t.notMatch(text, /environment="dev"/, 'dev is not counted');
  const state = (await app.inject({ method: 'GET', url: '/state' })).json<{
    dora: { windowDays: number; environments: Record<string, unknown>[] };
  }>();
  t.equal(state.dora.windowDays, 30, "/state's dora: the last 30 days");
  t.same(
    state.dora.environments.find((e) => e.environment === 'production'),
    {
      forge: 'github',
      repository: 'acme/shop',
      environment: 'production',
      // One success over the 9 hours of recorded history (since the first outcome), not over 30 days.
      deploymentsPerDay: 2.667,
      deploymentsPerWeek: 18.67,
      changeFailureRate: 0.5,
      timeToRestoreMedianSeconds: 7200,
      leadTimeMedianSeconds: null,
      deployments: 2,
      failedChanges: 1,
      unrestored: 0,
    },
    'per repository and environment; lead time unknown without commit times: null, not 0',
  );
  t.notOk(
    state.dora.environments.some((e) => e.environment === 'dev'),
    'the same environments as the metrics',
  );
});
