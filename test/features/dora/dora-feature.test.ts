/** The DORA feature at the spine's steps: each publish notes its environment's kind first; a recorded outcome is kept; the scrape sets the series once per computation. */
import pino from 'pino';
import t, { type Test } from 'tap';
import { createMetrics } from '../../../src/common/metrics.js';
import { doraFeature } from '../../../src/features/dora/dora-feature.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { candidate } from '../../reconcile/plan-fixtures.js';
import { record, shopDeployment } from '../../harness/recorded-deployments.js';
import { openDatabase } from '../../harness/database.js';

const NOW = Date.UTC(2026, 11, 2);
const H = 3_600_000;

function open(t: Test) {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const metrics = createMetrics();
  const feature = doraFeature(
    { db, forges: [], metrics, log: pino({ level: 'silent' }), now: () => NOW, dryRun: false, cluster: 'test' },
    { doraEnvironments: [] },
  );
  return { db, metrics, feature };
}

t.test("before each publish, the kind of its target's environment (production, a preview) is noted", async (t) => {
  const { db, feature } = open(t);
  const c = candidate('web');
  const step = (target: Partial<typeof c.target>) => ({
    ...c,
    target: { ...c.target, ...target },
    state: 'success' as const,
    description: 'Done',
  });
  t.equal(
    await feature.hooks?.beforePublish?.(step({ environment: 'live', productionEnvironment: true })),
    undefined,
    'nothing to do after',
  );
  await feature.hooks?.beforePublish?.(step({ environment: 'pr-9', transientEnvironment: true }));
  t.same(db.prepare(`SELECT environment, production, transient FROM environment_kinds ORDER BY environment`).all(), [
    { environment: 'live', production: 1, transient: 0 },
    { environment: 'pr-9', production: 0, transient: 1 },
  ]);
});

t.test('each outcome the store records is kept, in the same write; another database keeps none', (t) => {
  const { db } = open(t);
  record(new DeploymentStore(db), shopDeployment('a'), NOW - 2 * H, ['success', NOW - H]);
  t.equal((db.prepare(`SELECT COUNT(*) AS n FROM deployment_outcomes`).get() as { n: number }).n, 1);
  const other = openDatabase(':memory:');
  t.teardown(() => other.close());
  record(new DeploymentStore(other), shopDeployment('a'), NOW - 2 * H, ['success', NOW - H]);
  t.equal((other.prepare(`SELECT COUNT(*) AS n FROM deployment_outcomes`).get() as { n: number }).n, 0, 'no feature: nothing kept');
  t.end();
});

t.test('/state, /metrics and the page: the figures of the recorded outcomes', async (t) => {
  const { db, metrics, feature } = open(t);
  record(new DeploymentStore(db), shopDeployment('a'), NOW - 10 * H, ['failure', NOW - 9 * H]);
  record(new DeploymentStore(db), shopDeployment('b'), NOW - 8 * H, ['success', NOW - 7 * H]);
  feature.scrape?.();
  t.match(await metrics.registry.metrics(), /^gdb_dora_change_failure_ratio\{forge="github",environment="production"\} 0\.5$/m);
  const fields = feature.state?.fields(NOW) as { dora: { windowDays: number; computedAt: string | null; commitTimes: unknown } };
  t.equal(fields.dora.windowDays, 30);
  t.match(fields.dora.commitTimes, { lastError: null }, 'the commit times read');
  t.match(feature.page?.render(fields, { github: 'GitHub' }, NOW), /<td>GitHub<\/td><td>acme\/shop<\/td><td>production<\/td><td>2<\/td>/);
});
