import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DeploymentStore, type Origin } from '../../src/store/deployment-store.js';
import type { Identity } from '../../src/lifecycle/identity.js';
import { refusalKeys } from '../../src/lifecycle/refusal.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { SCHEMA_MIGRATIONS, openDatabase } from '../harness/database.js';

/** The schema version before the forge became part of a deployment's key. */
const BEFORE_FORGE = 5;
const T0 = Date.UTC(2025, 5, 1, 12);
const SHA = '1'.repeat(40);
const SOURCE = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'apps' };
const github: Identity = { forge: 'github', owner: 'acme', repo: 'web', environment: 'staging', sha: SHA, deploymentName: 'web' };
const origin: Origin = {
  source: SOURCE,
  workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
  container: 'app',
  image: 'ghcr.io/acme/web:1',
};

/** A database left by a bridge at schema version 5: one recorded GitHub deployment, one row left pending by a crash. */
function olderDatabase(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-migrate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  const db = new Database(path);
  for (const m of SCHEMA_MIGRATIONS.slice(0, BEFORE_FORGE)) db.exec(m);
  db.pragma(`user_version = ${BEFORE_FORGE}`);
  const insert = db.prepare(
    `INSERT INTO deployments (owner, repo, environment, sha, deployment_name, deployment_id, state, pending_state, source_kind,
      source_namespace, source_name, workload_kind, workload_namespace, workload_name, container, image, description, created_at, updated_at)
    VALUES ('acme', 'web', 'staging', ?, ?, ?, ?, ?, 'Kustomization', 'flux-system', 'apps', 'Deployment', 'apps', 'web', 'app',
      'ghcr.io/acme/web:1', 'Deployed', ?, ?)`,
  );
  insert.run(SHA, 'web', 42, 'success', null, T0, T0);
  insert.run(SHA, 'web-worker', 43, 'success', 'inactive', T0, T0 + 1);
  db.close();
  return path;
}

t.test('schema 5 → current: GitHub rows are kept as forge github, without a context', (t) => {
  const db = openDatabase(olderDatabase(t));
  t.teardown(() => db.close());
  t.equal(db.pragma('user_version', { simple: true }), SCHEMA_MIGRATIONS.length);
  const deployments = new DeploymentStore(db);
  t.same(deployments.get(github), {
    ...github,
    forge: 'github',
    context: null,
    deploymentId: 42,
    state: 'success',
    pendingState: null,
    description: 'Deployed',
    origin,
    updatedAt: T0,
  });
  t.match(deployments.get({ ...github, deploymentName: 'web-worker' }), { forge: 'github', deploymentId: 43, pendingState: 'gone' });
  t.same(deployments.get({ ...github, forge: 'github' })?.deploymentId, 42, "forge 'github' named or not: the same row");
  t.same(
    deployments
      .activeForSource(SOURCE)
      .map((r) => [r.forge, r.deploymentName, r.deploymentId])
      .sort(),
    [
      ['github', 'web', 42],
      ['github', 'web-worker', 43],
    ],
    'cleanup still finds them',
  );
  t.same(deployments.activeSources(), [SOURCE]);
  t.end();
});

t.test('the forge is part of the key: a Forgejo row of the same identity sits beside the GitHub row', (t) => {
  const db = openDatabase(olderDatabase(t));
  t.teardown(() => db.close());
  const deployments = new DeploymentStore(db);
  const forgejo: Identity = { ...github, forge: 'forgejo' };
  t.equal(deployments.get(forgejo), undefined, 'the GitHub row is not read as the Forgejo one');
  const row = deployments.insertProvisional(forgejo, origin, T0 + 5, 'deploy/staging (eu-1)');
  t.match(row, { forge: 'forgejo', context: 'deploy/staging (eu-1)', deploymentId: null, state: null, updatedAt: T0 + 5 });
  deployments.setState(forgejo, 'failure', 'crashed', T0 + 6);
  t.match(deployments.get(github), { forge: 'github', deploymentId: 42, state: 'success', description: 'Deployed', updatedAt: T0 });
  t.same(
    deployments
      .countsByState()
      .map((c) => [c.forge, c.state, c.count])
      .sort(),
    [
      ['forgejo', 'failure', 1],
      ['github', 'success', 2],
    ],
  );
  t.same(
    deployments.lineage({ ...github, sha: '2'.repeat(40) }).map((r) => r.forge),
    ['github'],
    'a GitHub lineage holds no Forgejo row',
  );
  deployments.forget(forgejo);
  t.equal(deployments.get(github)?.deploymentId, 42, 'forgetting the Forgejo row leaves the GitHub row');
  t.end();
});

t.test('opening the migrated database again changes nothing', (t) => {
  const path = olderDatabase(t);
  openDatabase(path).close();
  const db = openDatabase(path);
  t.teardown(() => db.close());
  t.equal(db.pragma('user_version', { simple: true }), SCHEMA_MIGRATIONS.length);
  t.equal(new DeploymentStore(db).list().length, 2);
  t.end();
});

t.test('schema 7 → 8: every refusal key names its forge; GitHub keys, stored bare, gain its name', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-migrate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  const old = new Database(path);
  for (const m of SCHEMA_MIGRATIONS.slice(0, 7)) old.exec(m);
  old.pragma('user_version = 7');
  const insert = old.prepare(
    `INSERT INTO github_refusals (key, code, reason, status, since, retry_at) VALUES (?, ?, 'refused', 404, ${T0}, ${T0 + 3_600_000})`,
  );
  const gitHubTarget = { ...github, forge: 'github' };
  const forgejoTarget = { ...github, forge: 'forgejo', repo: 'shop' };
  // As schema 7 stored them: GitHub's keys bare, Forgejo's after its name.
  insert.run('repo:acme/web', 'github_not_installed');
  insert.run(`deployment:acme|web|staging|${SHA}|web`, 'github_commit_not_found');
  insert.run('repo:forgejo:acme/shop', 'forgejo_forbidden');
  insert.run(`deployment:forgejo|acme|shop|staging|${SHA}|web`, 'forgejo_not_found');
  old.close();

  const db = openDatabase(path);
  t.teardown(() => db.close());
  const rows = db.prepare('SELECT forge, key FROM forge_refusals ORDER BY key').all();
  t.same(rows, [
    { forge: 'forgejo', key: `deployment:forgejo|acme|shop|staging|${SHA}|web` },
    { forge: 'github', key: `deployment:github|acme|web|staging|${SHA}|web` },
    { forge: 'forgejo', key: 'repo:forgejo:acme/shop' },
    { forge: 'github', key: 'repo:github:acme/web' },
  ]);
  // The keys the refusal guard asks for today find the migrated refusals.
  const refusals = new RefusalStore(db);
  for (const target of [gitHubTarget, forgejoTarget]) {
    const keys = refusalKeys(target);
    t.match(refusals.active([keys.repo], T0), { forge: target.forge }, `${target.forge}: the repository's refusal`);
    t.match(refusals.active([keys.deployment], T0), { forge: target.forge }, `${target.forge}: the deployment's refusal`);
  }
  t.end();
});
