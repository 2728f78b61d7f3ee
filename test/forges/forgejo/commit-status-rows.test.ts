import t, { type Test } from 'tap';
import type { ContextPhase } from '../../../src/forges/forgejo/commit-status-plan.js';
import type { CommitStatusKey } from '../../../src/forges/forgejo/commit-status-publisher.js';
import type { DeliveryState } from '../../../src/lifecycle/status-plan.js';
import { CommitStatusRows } from '../../../src/forges/forgejo/commit-status-rows.js';
import { DeploymentStore, type Origin } from '../../../src/store/deployment-store.js';
import type { Identity } from '../../../src/lifecycle/identity.js';
import { openDatabase } from '../../harness/database.js';

const T0 = Date.UTC(2025, 5, 1, 12);
const SHA = 'e'.repeat(40);
const CONTEXT = 'deploy/staging (eu-1)';
const origin: Origin = {
  source: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
  workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
  container: 'app',
  image: 'git.example.com/acme/web:1.0.0',
};
const identity = (forge: 'github' | 'forgejo', o: Partial<Identity> = {}): Identity => ({
  forge,
  owner: 'acme',
  repo: 'web',
  environment: 'staging',
  sha: SHA,
  deploymentName: 'web',
  ...o,
});
const key = (context = CONTEXT): CommitStatusKey => ({ owner: 'acme', repo: 'web', sha: SHA, context });

/** A fresh database with one Forgejo row (context CONTEXT) written like the publisher writes it. */
function setup(t: Test) {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const deployments = new DeploymentStore(db);
  deployments.insertProvisional(identity('forgejo'), origin, T0, CONTEXT);
  return { db, rows: new CommitStatusRows(deployments), deployments };
}

t.test('a row that never held a status reads as unknown: the publisher asks the forge first', (t) => {
  const { rows } = setup(t);
  t.equal(rows.get(key()), undefined);
  t.equal(rows.get(key('deploy/production (eu-1)')), undefined, 'no row at all');
  rows.settle(key(), null, null, T0 + 1);
  t.equal(rows.get(key()), undefined, 'settled to "nothing on the forge" is still unknown');
  t.end();
});

t.test('settle round-trips every phase, kept in the state column in neutral words', (t) => {
  const { rows, deployments } = setup(t);
  const table: Array<[ContextPhase, DeliveryState]> = [
    ['in_progress', 'in_progress'],
    ['success', 'success'],
    ['failure', 'failure'],
    ['gone', 'gone'],
    ['error', 'error'],
  ];
  for (const [i, [phase, state]] of table.entries()) {
    rows.settle(key(), phase, `text ${phase}`, T0 + i);
    t.same(rows.get(key()), { phase, description: `text ${phase}`, pendingPhase: null }, phase);
    t.match(deployments.get(identity('forgejo')), { state, pendingState: null, description: `text ${phase}`, updatedAt: T0 + i }, phase);
  }
  t.end();
});

t.test('setPending marks before a POST and clears after a refusal; settle clears it too', (t) => {
  const { rows, deployments } = setup(t);
  rows.setPending(key(), 'in_progress', T0 + 1);
  t.same(rows.get(key()), { phase: null, description: null, pendingPhase: 'in_progress' }, 'pending on a fresh row is known');
  rows.setPending(key(), null, T0 + 2);
  t.equal(rows.get(key()), undefined, 'cleared: unknown again');
  rows.settle(key(), 'success', 'Rollout complete', T0 + 3);
  rows.setPending(key(), 'gone', T0 + 4);
  t.same(rows.get(key()), { phase: 'success', description: 'Rollout complete', pendingPhase: 'gone' });
  t.match(deployments.get(identity('forgejo')), { state: 'success', pendingState: 'gone', updatedAt: T0 + 4 });
  rows.settle(key(), 'gone', 'Deployment gone: pruned', T0 + 5);
  t.same(rows.get(key()), { phase: 'gone', description: 'Deployment gone: pruned', pendingPhase: null });
  t.end();
});

t.test('only the Forgejo row of that context: GitHub rows of the same commit and other contexts stay as they are', (t) => {
  const { db, rows, deployments } = setup(t);
  const github = identity('github');
  deployments.insertProvisional(github, origin, T0);
  deployments.setDeploymentId(github, 7, 'in_progress', T0);
  // Even a GitHub row that (against the rules) names the same context is not a Forgejo record.
  db.prepare(`UPDATE deployments SET context = ? WHERE forge = 'github'`).run(CONTEXT);
  const other = identity('forgejo', { environment: 'production' });
  deployments.insertProvisional(other, origin, T0, 'deploy/production (eu-1)');
  t.equal(rows.get(key()), undefined, "GitHub's state is not read as the context's");
  rows.settle(key(), 'success', 'done', T0 + 1);
  rows.setPending(key(), 'gone', T0 + 2);
  t.match(deployments.get(github), { forge: 'github', deploymentId: 7, state: 'in_progress', pendingState: null, updatedAt: T0 });
  t.match(deployments.get(other), { state: null, pendingState: null, updatedAt: T0 });
  t.equal(rows.get(key('deploy/production (eu-1)')), undefined);
  t.end();
});

t.test('an update of a context without a row throws, and writes nothing', (t) => {
  const { rows, deployments } = setup(t);
  const missing = key('deploy/production (eu-1)');
  const message = `no deployment row for status context "deploy/production (eu-1)" on acme/web@${SHA}`;
  t.throws(() => rows.settle(missing, 'success', 'done', T0), { message });
  t.throws(() => rows.setPending(missing, 'success', T0), { message });
  t.throws(() => rows.settle({ ...key(), sha: 'f'.repeat(40) }, 'success', 'done', T0), /no deployment row/, 'another commit');
  t.same(
    deployments.list().map((r) => [r.context, r.state]),
    [[CONTEXT, null]],
  );
  t.end();
});
