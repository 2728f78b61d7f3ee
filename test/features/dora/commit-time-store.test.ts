/** Commit times (schema 14): what is wanted, what a read leaves, the join into the DORA facts, the prune. */
import t, { type Test } from 'tap';
import { tempDatabase } from '../../harness/temp-database.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { CommitTimeStore } from '../../../src/features/dora/commit-time-store.js';
import { DoraStore, keepOutcomes } from '../../../src/features/dora/dora-store.js';
import { TransientEnvironmentStore } from '../../../src/store/transient-store.js';
import { pruneStorage } from '../../harness/database.js';
import { record, shopDeployment } from '../../harness/recorded-deployments.js';

function open(t: Test) {
  const temp = tempDatabase(t, 'gdb-commit-times-');
  const stores = (db = temp.db()) => ({
    deployments: new DeploymentStore(keepOutcomes(db)),
    times: new CommitTimeStore(db),
    dora: new DoraStore(db),
    db,
  });
  return { ...stores(), reopen: () => stores(temp.reopen()) };
}

const production = { forge: 'github', owner: 'acme', repo: 'shop', environment: 'production' };
const ref = (c: string) => ({ forge: 'github', owner: 'acme', repo: 'shop', sha: c.repeat(40) });

t.test('a success wants its commit once; a failure, a gone row and an old success do not', (t) => {
  const { deployments, times } = open(t);
  t.equal(times.outcomesVersion(), 0, 'no outcome yet');
  record(deployments, shopDeployment('a'), 100, ['in_progress', 110], ['success', 150]);
  record(deployments, shopDeployment('b'), 200, ['failure', 250]);
  // The same commit on a second workload: one commit wanted.
  record(deployments, shopDeployment('a', { deploymentName: 'shop-worker' }), 100, ['success', 160]);
  record(deployments, shopDeployment('c', { environment: 'staging' }), 100, ['success', 170]);
  t.ok(times.outcomesVersion() > 0);
  t.same(
    times.environments(0).map((e) => [e.environment, e.transient]),
    [
      ['production', false],
      ['staging', false],
    ],
    'environments with a success',
  );
  t.same(times.wanted(production, 0, 1_000, 10), [ref('a')], 'only the success, once');
  t.same(times.wanted(production, 155, 1_000, 10), [ref('a')], 'the second workload’s success is in the window');
  t.same(times.wanted(production, 161, 1_000, 10), [], 'successes before the window are not wanted');
  t.end();
});

t.test('a known or missing commit is never wanted again; a failed one when it is due', (t) => {
  const { deployments, times, reopen } = open(t);
  for (const c of ['a', 'b', 'c']) record(deployments, shopDeployment(c), 100, ['success', 150]);
  times.record(ref('a'), Date.UTC(2026, 10, 30), 200);
  times.record(ref('b'), null, 200);
  t.equal(times.failed(ref('c'), '503 Service Unavailable', 500, 200), 1, 'the first failed read');
  t.equal(times.nextRetryAt(), 500);
  t.same(times.wanted(production, 0, 499, 10), [], 'nothing before the retry is due');
  t.same(times.wanted(production, 0, 500, 10), [ref('c')], 'the failed one when due');
  t.equal(times.failed(ref('c'), 'timeout', 900, 500), 2, 'attempts count up');
  t.equal(times.attempts(ref('c')), 2);
  t.same(times.counts(), { known: 1, missing: 1, failed: 1 });
  const again = reopen();
  t.same(again.times.counts(), { known: 1, missing: 1, failed: 1 }, 'kept over a restart');
  again.times.record(ref('c'), 42_000, 900);
  t.same(again.times.counts(), { known: 2, missing: 1, failed: 0 });
  t.equal(again.times.nextRetryAt(), null);
  t.equal(again.times.attempts(ref('a')), 0);
  t.end();
});

t.test('the DORA facts carry a known commit time, and a missing one stays unknown', (t) => {
  const { deployments, times, dora } = open(t);
  record(deployments, shopDeployment('a'), 100, ['success', 5_000]);
  record(deployments, shopDeployment('b'), 6_000, ['success', 9_000]);
  t.same(
    dora.facts().map((f) => f.commitAt),
    [null, null],
    'nothing read yet',
  );
  times.record(ref('a'), 1_000, 9_500);
  times.record(ref('b'), null, 9_500);
  t.same(
    dora.facts().map((f) => [f.sha[0], f.commitAt]),
    [
      ['a', 1_000],
      ['b', null],
    ],
  );
  t.end();
});

t.test('previews are marked transient, so the reader can leave their commits alone', (t) => {
  const { deployments, times, db } = open(t);
  new TransientEnvironmentStore(db).mark({ forge: 'github', owner: 'acme', repo: 'shop', environment: 'pr-7' }, 100);
  record(deployments, shopDeployment('a', { environment: 'pr-7' }), 100, ['success', 150]);
  t.same(
    times.environments(0).map((e) => [e.environment, e.transient]),
    [['pr-7', true]],
  );
  t.end();
});

t.test('a commit time goes with the last outcome of its commit', (t) => {
  const { deployments, times, db } = open(t);
  const day = 86_400_000;
  record(deployments, shopDeployment('a'), 0, ['success', day]);
  record(deployments, shopDeployment('b'), 0, ['success', 100 * day]);
  times.record(ref('a'), 0, day);
  times.record(ref('b'), 0, 100 * day);
  const pruned = pruneStorage(db, 100 * day);
  t.equal(pruned.deployment_outcomes, 1, "a's outcome is past 90 days");
  t.equal(pruned.commit_times, 1, "and so is a's commit time");
  t.same(times.counts(), { known: 1, missing: 0, failed: 0 });
  t.end();
});
