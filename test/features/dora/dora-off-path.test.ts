/**
 * Issue 32: with 500,000 recorded outcomes (previews included) the bridge ran out of heap and `/metrics` waited for
 * the DORA figures. Now only counted environments are read (chosen in SQL), and the figures are computed off the
 * request path: a scrape reads the last ones.
 */
import t, { type Test } from 'tap';
import { DoraCache } from '../../../src/features/dora/dora-cache.js';
import { doraWindow } from '../../../src/features/dora/dora-metrics.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { DoraStore, keepOutcomes } from '../../../src/features/dora/dora-store.js';
import { TransientEnvironmentStore } from '../../../src/store/transient-store.js';
import { record, shopDeployment } from '../../harness/recorded-deployments.js';
import { openDatabase } from '../../harness/database.js';

const H = 3_600_000;
const NOW = Date.UTC(2026, 11, 2);

function recorded(t: Test) {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const deployments = new DeploymentStore(keepOutcomes(db));
  for (const [i, environment] of ['production', 'staging', 'pr-1', 'pr-2'].entries())
    record(deployments, shopDeployment('a', { environment, sha: String(i).repeat(40) }), NOW - 10 * H, ['success', NOW - 9 * H]);
  const transient = new TransientEnvironmentStore(db);
  for (const environment of ['pr-1', 'pr-2']) transient.mark({ forge: 'github', owner: 'acme', repo: 'shop', environment }, NOW - 9 * H);
  return { db, dora: new DoraStore(db) };
}

t.test('only counted environments are read from the database: previews and uncounted ones never reach memory', (t) => {
  const { dora } = recorded(t);
  const seen: string[] = [];
  const facts = dora.facts({
    counted: (environment, kind) => {
      seen.push(`${environment}${kind.transient ? ' (preview)' : ''}`);
      return !kind.transient && environment !== 'staging';
    },
  });
  t.same(
    facts.map((f) => f.environment),
    ['production'],
  );
  t.same(seen.sort(), ['pr-1 (preview)', 'pr-2 (preview)', 'production', 'staging'], 'asked in SQL, once per outcome');
  t.same(
    dora
      .facts()
      .map((f) => f.environment)
      .sort(),
    ['pr-1', 'pr-2', 'production', 'staging'],
    'without a filter: all (the CLI)',
  );
  t.same(
    doraWindow(dora, NOW, (e) => e === 'staging')
      .map((f) => f.environment)
      .sort(),
    ['production', 'staging'],
  );
  t.end();
});

t.test('once started, the figures are computed off the request path: a scrape never computes', (t) => {
  const { dora } = recorded(t);
  let reads = 0;
  const counting = {
    facts: (f: Parameters<DoraStore['facts']>[0]) => {
      reads++;
      return dora.facts(f);
    },
    since: () => dora.since(),
    version: () => dora.version(),
  };
  const cache = new DoraCache(counting);
  cache.start(() => NOW, 60_000);
  t.teardown(() => cache.stop());
  t.equal(reads, 1, 'computed at the start');
  for (let i = 0; i < 5; i++) t.equal(cache.figures(NOW + i * 120_000).length, 1);
  t.equal(reads, 1, 'five scrapes, minutes apart: none computed');
  t.end();
});
