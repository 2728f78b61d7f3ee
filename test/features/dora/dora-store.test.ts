import t, { type Test } from 'tap';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabaseReadOnly } from '../../../src/store/database.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { record, SHOP_ORIGIN, shopDeployment } from '../../harness/recorded-deployments.js';
import { DoraStore, keepOutcomes, outcomeSpan } from '../../../src/features/dora/dora-store.js';
import { TransientEnvironmentStore } from '../../../src/store/transient-store.js';
import { CommitTimeStore } from '../../../src/features/dora/commit-time-store.js';
import { EnvironmentKinds } from '../../../src/features/dora/environment-kinds.js';
import { doraFigures } from '../../../src/features/dora/dora.js';
import { CommitStatusRows } from '../../../src/forges/forgejo/commit-status-rows.js';
import type { Identity } from '../../../src/lifecycle/identity.js';
import { SCHEMA_MIGRATIONS, openDatabase, pruneStorage } from '../../harness/database.js';

const sha = (c: string) => c.repeat(40);
const id = (o: Partial<Identity> = {}): Identity => shopDeployment('a', o);

function open(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-dora-'));
  const path = join(dir, 'bridge.db');
  const dbs = [openDatabase(path)];
  t.teardown(() => {
    for (const db of dbs) if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const stores = (db = dbs.at(-1)!) => ({
    deployments: new DeploymentStore(keepOutcomes(db)),
    dora: new DoraStore(db),
    transient: new TransientEnvironmentStore(db),
  });
  return {
    ...stores(),
    db: () => dbs.at(-1)!,
    reopen: () => {
      dbs.at(-1)!.close();
      dbs.push(openDatabase(path));
      return stores();
    },
  };
}

const deploy = record;

t.test('an empty database: no facts, no history start', (t) => {
  const { dora } = open(t);
  t.same(dora.facts(), []);
  t.equal(dora.since(), undefined);
  t.same(doraFigures(dora.facts(), { now: 1_000, windowMs: 1_000, rollbackWindowMs: 100, since: dora.since() }), []);
  t.end();
});

t.test('outcomes from the write path: a failure retried to success, a supersession, a rollback, kept over a restart', (t) => {
  const { deployments, dora, reopen } = open(t);
  const a = id();
  const b = id({ sha: sha('b') });
  deploy(deployments, a, 100, ['in_progress', 110], ['failure', 120], ['success', 150]);
  deploy(deployments, b, 200, ['in_progress', 210], ['success', 260]);
  deployments.setState(a, 'gone', 'superseded', 260);
  // The rollback: the old commit's row comes back from gone to success.
  deployments.setState(a, 'success', 'rolled back', 300);
  deployments.setState(b, 'gone', 'superseded', 300);
  deployments.setState(a, 'success', 'again', 310); // the same state twice writes no second outcome
  const want = [
    { sha: sha('a'), startedAt: 100, failedAt: 120, succeededAt: 150, superseded: true },
    { sha: sha('b'), startedAt: 200, failedAt: null, succeededAt: 260, superseded: true },
    { sha: sha('a'), startedAt: 300, failedAt: null, succeededAt: 300, superseded: false },
  ];
  const pick = (facts: ReturnType<DoraStore['facts']>) =>
    facts.map(({ sha, startedAt, failedAt, succeededAt, superseded }) => ({ sha, startedAt, failedAt, succeededAt, superseded }));
  t.same(pick(dora.facts()), want);
  t.equal(dora.since(), 120, 'the history starts at the first outcome');
  const after = reopen();
  t.same(pick(after.dora.facts()), want, 'the same after a restart');
  const [figures] = doraFigures(after.dora.facts(), { now: 400, windowMs: 400, rollbackWindowMs: 100, since: after.dora.since() });
  t.equal(figures?.deployments, 3);
  t.equal(figures?.failedChanges, 2, 'the failure, and b rolled back to the older a');
  t.same(figures?.restoreTimesMs, [30]);
  t.same(figures?.leadTimesMs, [], 'no commit times read yet: no lead time, not 0');
  t.end();
});

t.test('adoption after a crash records the outcome it finds; the filter narrows; previews are marked', (t) => {
  const { deployments, dora, transient } = open(t);
  const a = id();
  deployments.insertProvisional(a, SHOP_ORIGIN, 100);
  deployments.setDeploymentId(a, 7, 'success', 140);
  const other = id({ owner: 'Else', repo: 'thing', environment: 'pr-1' });
  transient.mark({ forge: 'github', owner: 'Else', repo: 'thing', environment: 'pr-1' }, 90);
  deploy(deployments, other, 100, ['success', 130]);
  t.same(
    dora.facts({ repository: 'acme/shop' }).map((f) => [f.repository, f.succeededAt, f.transient]),
    [['acme/shop', 140, false]],
  );
  t.same(
    dora.facts({ repository: 'else/THING' }).map((f) => [f.repository, f.environment, f.transient]),
    [['Else/thing', 'pr-1', true]],
  );
  t.same(
    dora.facts({ from: 135 }).map((f) => f.repository),
    ['acme/shop'],
  );
  t.end();
});

t.test('version: another value when an outcome is appended or pruned, the same for a state that appends none', (t) => {
  const { deployments, dora, db } = open(t);
  const day = 86_400_000;
  const empty = dora.version();
  deploy(deployments, id(), 100, ['in_progress', 100]);
  t.equal(dora.version(), empty, 'in_progress is no outcome');
  deployments.setState(id(), 'success', 'live', 200);
  const one = dora.version();
  t.not(one, empty, 'a success appended');
  deployments.setState(id(), 'success', 'again', 300);
  t.equal(dora.version(), one, 'the same state twice appends nothing');
  deploy(deployments, id({ sha: sha('b') }), 20 * day, ['success', 20 * day]);
  const two = dora.version();
  t.not(two, one);
  pruneStorage(db(), 90 * day + 201);
  t.not(dora.version(), two, 'the oldest pruned (the last rowid is the same, the first is not)');
  t.end();
});

t.test('outcomes are kept 90 days; the history then starts at the oldest one kept', (t) => {
  const { deployments, dora, db: current } = open(t);
  const day = 86_400_000;
  deploy(deployments, id(), 100, ['success', 100]);
  deploy(deployments, id({ sha: sha('b') }), 20 * day, ['success', 20 * day]);
  const db = current();
  t.equal(pruneStorage(db, 90 * day + 100).deployment_outcomes, 0, 'exactly 90 days old: kept');
  t.equal(pruneStorage(db, 90 * day + 101).deployment_outcomes, 1);
  t.equal(dora.since(), 20 * day);
  t.same(
    dora.facts().map((f) => f.sha),
    [sha('b')],
  );
  t.end();
});

t.test('the read-only opening: nothing created, an older schema refused, not migrated', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-dora-ro-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.throws(() => openDatabaseReadOnly(join(dir, 'none.db'), SCHEMA_MIGRATIONS.length), 'a missing file is an error');
  t.notOk(existsSync(join(dir, 'none.db')), 'and is not created');
  const path = join(dir, 'old.db');
  const old = openDatabase(path);
  old.pragma(`user_version = ${SCHEMA_MIGRATIONS.length - 1}`);
  t.throws(() => openDatabaseReadOnly(path, SCHEMA_MIGRATIONS.length), /older than this bridge's .*start this bridge's server on it first/);
  t.equal(old.pragma('user_version', { simple: true }), SCHEMA_MIGRATIONS.length - 1, 'not migrated by the reader');
  old.pragma(`user_version = ${SCHEMA_MIGRATIONS.length}`);
  old.close();
  const ro = openDatabaseReadOnly(path, SCHEMA_MIGRATIONS.length);
  t.teardown(() => ro.close());
  t.same(new DoraStore(ro).facts(), []);
  t.throws(() => ro.exec('DELETE FROM deployment_outcomes'), /readonly/i, 'it cannot write');
  t.end();
});

t.test("Forgejo's commit-status rows record their outcomes too", (t) => {
  const { deployments, dora, db } = open(t);
  const who = id({ forge: 'forgejo' });
  deployments.insertProvisional(who, SHOP_ORIGIN, 100, 'deploy/production');
  const rows = new CommitStatusRows(new DeploymentStore(keepOutcomes(db())));
  const key = { owner: 'acme', repo: 'shop', sha: sha('a'), context: 'deploy/production' };
  rows.settle(key, 'in_progress', 'rolling out', 110);
  rows.settle(key, 'failure', 'failed', 120);
  rows.settle(key, 'success', 'done', 150);
  t.same(
    dora.facts().map((f) => [f.forge, f.startedAt, f.failedAt, f.succeededAt]),
    [['forgejo', 100, 120, 150]],
  );
  t.throws(() => rows.settle({ ...key, context: 'other' }, 'success', 'x', 160), /no deployment row/);
  t.equal(dora.facts().length, 1, 'a refused write leaves no outcome behind');
  t.end();
});

t.test('version: also another value when a commit time becomes known or an environment kind changes', (t) => {
  const { deployments, dora, db } = open(t);
  deploy(deployments, id(), 100, ['success', 150]);
  const before = dora.version();
  new CommitTimeStore(db()).record({ forge: 'github', owner: 'acme', repo: 'shop', sha: sha('a') }, 50, 160);
  const known = dora.version();
  t.not(known, before, 'a commit time read');
  new EnvironmentKinds(db(), () => 170).note(
    { forge: 'github', owner: 'acme', repo: 'shop', environment: 'live' },
    { production: true, transient: false },
  );
  t.not(dora.version(), known, 'an environment kind noted');
  t.end();
});

t.test('outcomeSpan: about how many outcomes a version stands for (issue 35: few are computed on the loop)', (t) => {
  const table: Array<[version: string, outcomes: number]> = [
    ['0:0 0:0 0:0', 0],
    ['1:1 0:0 0:0', 1],
    ['1:3000 12:99 4:5', 3000],
    ['2501:7500 0:0 0:0', 5000],
    ['7:7', 1],
    ['', Infinity],
    ['a:b 0:0 0:0', Infinity],
  ];
  for (const [version, outcomes] of table) t.equal(outcomeSpan(version), outcomes, JSON.stringify(version));
  t.end();
});

t.test('outcomes: counts what is recorded, retention included', (t) => {
  const { deployments, dora, db } = open(t);
  const day = 86_400_000;
  t.equal(dora.outcomes(), 0);
  deploy(deployments, id(), 100, ['success', 200]);
  deploy(deployments, id({ sha: sha('b') }), 20 * day, ['failure', 20 * day], ['success', 20 * day + 5]);
  t.equal(dora.outcomes(), 3);
  pruneStorage(db(), 90 * day + 201);
  t.equal(dora.outcomes(), 2, 'the oldest pruned');
  t.end();
});
