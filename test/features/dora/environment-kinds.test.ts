/** Environment kinds (schema 14): noted on publish, written only on a change, read by the DORA facts and the commit reader. */
import t, { type Test } from 'tap';
import type { Db } from '../../../src/store/database.js';
import { tempDatabase } from '../../harness/temp-database.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { DoraStore, keepOutcomes } from '../../../src/features/dora/dora-store.js';
import { CommitTimeStore } from '../../../src/features/dora/commit-time-store.js';
import { EnvironmentKinds } from '../../../src/features/dora/environment-kinds.js';
import { doraFigures } from '../../../src/features/dora/dora.js';
import { pruneStorage } from '../../harness/database.js';
import { record, shopDeployment } from '../../harness/recorded-deployments.js';

const DAY = 86_400_000;

function open(t: Test) {
  const temp = tempDatabase(t, 'gdb-kinds-');
  let clock = 1_000;
  const stores = (db = temp.db()) => ({
    kinds: new EnvironmentKinds(db, () => clock),
    deployments: new DeploymentStore(keepOutcomes(db)),
    dora: new DoraStore(db),
    db,
  });
  return { ...stores(), at: (ms: number) => (clock = ms), reopen: () => stores(temp.reopen()) };
}

const env = (environment: string) => ({ forge: 'github', owner: 'acme', repo: 'shop', environment });
const rows = (db: Db) => db.prepare(`SELECT environment, production, transient, seen_at FROM environment_kinds ORDER BY environment`).all();

t.test('a kind is written once, and again only when it changes', (t) => {
  const { kinds, db, at } = open(t);
  kinds.note(env('live'), { production: true, transient: false });
  at(2_000);
  kinds.note(env('live'), { production: true, transient: false });
  t.same(rows(db), [{ environment: 'live', production: 1, transient: 0, seen_at: 1_000 }], 'the same kind: no write');
  at(3_000);
  kinds.note(env('live'), { production: false, transient: false });
  t.same(rows(db), [{ environment: 'live', production: 0, transient: 0, seen_at: 3_000 }], 'a change is written');
  t.end();
});

t.test('the DORA facts count an annotation-only production environment and never a preview of any forge', (t) => {
  const { kinds, deployments, dora, reopen } = open(t);
  kinds.note(env('live'), { production: true, transient: false });
  kinds.note(env('pr-4'), { production: false, transient: true });
  record(deployments, shopDeployment('a', { environment: 'live' }), 100, ['success', 200]);
  record(deployments, shopDeployment('b', { environment: 'pr-4' }), 100, ['success', 200]);
  t.same(
    dora.facts().map((f) => [f.environment, f.production, f.transient]),
    [
      ['live', true, false],
      ['pr-4', false, true],
    ],
  );
  const again = reopen();
  const figures = doraFigures(again.dora.facts(), { now: DAY, windowMs: DAY, rollbackWindowMs: 1, include: () => true });
  t.same(
    figures.map((f) => f.environment),
    ['live'],
    "DORA_ENVIRONMENTS='*' still leaves the preview out, also after a restart",
  );
  t.same(
    new CommitTimeStore(again.db).environments(0).map((e) => [e.environment, e.production, e.transient]),
    [
      ['live', true, false],
      ['pr-4', false, true],
    ],
    'the commit reader sees the same kinds',
  );
  t.end();
});

t.test('a kind goes once its outcomes are gone and it was not published into for 90 days', (t) => {
  const { kinds, deployments, db, at } = open(t);
  at(0);
  kinds.note(env('live'), { production: true, transient: false });
  kinds.note(env('old'), { production: true, transient: false });
  record(deployments, shopDeployment('a', { environment: 'live' }), 100 * DAY, ['success', 100 * DAY]);
  const pruned = pruneStorage(db, 100 * DAY);
  t.equal(pruned.environment_kinds, 1);
  t.same(
    rows(db).map((r) => (r as { environment: string }).environment),
    ['live'],
    'the one with an outcome stays',
  );
  t.end();
});
