/**
 * A deployment a person deleted on GitHub is not a refusal: its 404 makes the bridge forget it. A
 * commit that still needs a status gets a new deployment (once); an `inactive` that was due is done.
 */
import t from 'tap';
import { RetryLater } from '../../src/reconcile/reconcile-source.js';
import { OPT_IN, GRACE_MS, PROGRESSING, READY, sha, startReconcileRig } from './reconcile-rig.js';

const WEB = sha('web-1');
const WEB2 = sha('web-2');

t.test('the status of a deleted deployment goes to a new one, which the cache then holds', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(PROGRESSING, ['web']);
  await rig.reconcile();
  const deleted = rig.github.deployments[0]!.id;
  rig.github.remove(deleted);

  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { statusesSent: 1, skipped: 0 });
  t.same(rig.github.trail('acme', 'web'), [['success']], 'a new deployment with the success');
  const created = rig.github.deployments[0]!.id;
  t.not(created, deleted);
  t.match(rig.deployments.list(), [{ sha: WEB, deploymentId: created, state: 'success', pendingState: null }]);
  t.same(rig.refusals.list(), [], 'no refusal');
  t.same(rig.github.calls.slice(-4), [
    'createStatus acme/web',
    'listDeployments acme/web',
    'createDeployment acme/web',
    'createStatus acme/web',
  ]);
});

t.test('a new deployment that GitHub also answers 404 for is a refusal', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(PROGRESSING, ['web']);
  await rig.reconcile();
  rig.github.remove(rig.github.deployments[0]!.id);
  rig.github.faults = [{ method: 'createStatus', status: 404, message: 'Not Found' }];

  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { statusesSent: 0, skipped: 1 });
  t.same(
    rig.github.calls.filter((c) => c.startsWith('create')),
    ['createDeployment acme/web', 'createStatus acme/web', 'createStatus acme/web', 'createDeployment acme/web', 'createStatus acme/web'],
    'one new deployment, not more',
  );
  t.match(rig.refusals.list(), [
    {
      code: 'github_not_found',
      reason: /^the deployment of [0-9a-f]{7} in acme\/web was deleted on GitHub, and so was the new one \(404\)$/,
    },
  ]);
});

t.test('a deleted deployment whose commit needs no new status is left alone until it is superseded: its inactive is done', async (t) => {
  const rig = startReconcileRig(t);
  const named = { annotations: { ...OPT_IN, 'github-deployment-bridge.io/deployment-name': 'web' } };
  rig.workload('web', WEB, named);
  rig.source(READY, ['web']);
  await rig.reconcile();
  rig.github.remove(rig.github.deployments[0]!.id);
  const calls = rig.github.calls.length;
  t.match(await rig.reconcile(), { statusesSent: 0 });
  t.equal(rig.github.calls.length, calls, 'nothing to send: GitHub is not asked');

  // The success is sent, then superseding the deleted one meets its 404, and the publish runs again (sending nothing more).
  rig.workload('web', WEB2, named);
  t.match(await rig.reconcile(), { skipped: 0 });
  t.same(rig.github.trail('acme', 'web'), [['success']], 'the new commit succeeded; nothing was created for the deleted one');
  t.match(rig.deployments.list(), [{ sha: WEB2, state: 'success' }], 'the deleted deployment is forgotten');
  t.same(rig.refusals.list(), []);
});

t.test('cleanup: a deployment deleted on GitHub needs no inactive; it is forgotten and the cleanup is done', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.workload('api', sha('api-1'));
  rig.source(READY, ['web', 'api']);
  await rig.reconcile();
  rig.github.remove(rig.github.deployments[0]!.id);

  rig.source(READY, []);
  t.match(await rig.reconcile(), { recheck: 'cleanup' });
  rig.clock.now += GRACE_MS;
  t.match(await rig.reconcile(), { recheck: null }, 'not failed: nothing to retry');
  t.same(rig.github.trail('acme', 'api'), [['success', 'inactive']], 'the other workload still ends');
  t.match(
    rig.deployments.list().map((d) => [d.repo, d.state]),
    [['api', 'gone']],
    'the deleted one is forgotten',
  );
  const calls = rig.github.calls.length;
  await rig.reconcile();
  t.equal(rig.github.calls.length, calls, 'nothing is sent again');
});

t.test('cleanup: a deactivation that fails does not hold back the others; it is sent again on the retry', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.workload('api', sha('api-1'));
  rig.source(READY, ['web', 'api']);
  await rig.reconcile();
  rig.source(READY, []);
  await rig.reconcile();
  rig.clock.now += GRACE_MS;
  rig.github.faults = [{ method: 'createStatus', repo: 'acme/web', status: 503, message: 'Service Unavailable', times: 1 }];
  await t.rejects(rig.reconcile(), RetryLater, 'the source is retried');
  t.same(rig.github.trail('acme', 'api'), [['success', 'inactive']], 'the other workload ends');
  t.same(rig.github.trail('acme', 'web'), [['success']]);
  t.match(await rig.reconcile(), { recheck: null }, 'the retry ends the one that failed');
  t.same(rig.github.trail('acme', 'web'), [['success', 'inactive']]);
});
