/** The reconcile through its ports, in one process: Flux and workloads in, GitHub deployments and /state's records out. */
import t from 'tap';
import { REFUSAL_RETRY_MS } from '../../src/lifecycle/refusal.js';
import { RetryLater } from '../../src/reconcile/reconcile-source.js';
import { kustomization } from '../harness/flux-objects.js';
import { FAILED, GRACE_MS, PROGRESSING, READY, SOURCE, sha, startReconcileRig } from './reconcile-rig.js';

const WEB = sha('web-1');
const API = sha('api-1');

t.test('a new source: in progress while Flux reconciles, success once Ready, then nothing more to send', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(PROGRESSING, ['web']);
  t.match(await rig.reconcile(), { phase: { kind: 'in_progress' }, published: 1, statusesSent: 1, skipped: 0, recheck: null });
  t.same(rig.github.trail('acme', 'web'), [['in_progress']]);
  t.same(rig.github.calls, ['listDeployments acme/web', 'createDeployment acme/web', 'createStatus acme/web']);

  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { phase: { kind: 'success' }, statusesSent: 1, recheck: null });
  t.same(rig.github.trail('acme', 'web'), [['in_progress', 'success']], 'the same deployment');
  const calls = rig.github.calls.length;
  t.match(await rig.reconcile(), { published: 1, statusesSent: 0 });
  t.equal(rig.github.calls.length, calls, 'a reconcile with nothing new asks GitHub nothing');
  t.match(rig.sources.list(), [{ ...SOURCE, phase: 'success', reason: 'ReconciliationSucceeded', lastError: null }]);
});

t.test('catch-up: a source found Ready gets its success at once', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { statusesSent: 1, recheck: null });
  t.same(rig.github.trail('acme', 'web'), [['success']]);
  t.match(rig.deployments.list(), [{ owner: 'acme', repo: 'web', sha: WEB, state: 'success', pendingState: null }]);
});

t.test('a rollout in progress is re-checked, and succeeds once complete', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB, { rollout: 'progressing', replicas: 2 });
  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { statusesSent: 1, recheck: 'rollout' });
  t.match(rig.github.deployments[0]!.statuses, [{ state: 'in_progress', description: '1/2 replicas updated' }]);
  t.match(await rig.reconcile(), { statusesSent: 0, recheck: 'rollout' }, 'still rolling out: nothing new to send');

  rig.workload('web', WEB, { replicas: 2 });
  t.match(await rig.reconcile(), { statusesSent: 1, recheck: null });
  t.same(rig.github.trail('acme', 'web'), [['in_progress', 'success']]);
});

t.test('a failed reconcile, then a retry of the same commit that succeeds', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(FAILED, ['web']);
  t.match(await rig.reconcile(), { phase: { kind: 'failure' }, statusesSent: 1 });
  t.match(rig.github.deployments[0]!.statuses, [{ state: 'failure', description: `${FAILED.reason}: ${FAILED.message}` }]);
  rig.source(READY, ['web']);
  await rig.reconcile();
  t.same(rig.github.trail('acme', 'web'), [['failure', 'success']], 'success on the same deployment');
});

t.test(
  'GitHub refuses a repository: its workload is skipped, the others report, nothing is asked again before the retry time',
  async (t) => {
    const rig = startReconcileRig(t);
    rig.workload('web', WEB);
    rig.workload('api', API);
    rig.source(READY, ['web', 'api']);
    rig.github.faults = [{ method: 'listDeployments', status: 404, message: 'Not Found', times: 1 }];
    t.match(await rig.reconcile(), { published: 2, statusesSent: 1, skipped: 1, recheck: null }, 'a refusal is no retry');
    t.match(rig.sources.listSkips(), [
      {
        workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
        container: 'app',
        code: 'github_not_found',
        reason: /acme\/web not found/,
      },
    ]);
    t.same(rig.github.trail('acme', 'api'), [['success']]);
    t.match(rig.refusals.list(), [{ key: 'repo:github:acme/web', code: 'github_not_found' }]);
    t.same(
      rig.deployments.list().map((d) => d.repo),
      ['api'],
      'the provisional row of the refused creation is gone',
    );

    const calls = rig.github.calls.length;
    t.match(await rig.reconcile(), { skipped: 1 });
    t.equal(rig.github.calls.length, calls, 'held: GitHub is not asked again');

    rig.clock.now += REFUSAL_RETRY_MS;
    t.match(await rig.reconcile(), { skipped: 0, statusesSent: 1 });
    t.same(rig.github.trail('acme', 'web'), [['success']]);
    t.same(rig.sources.listSkips(), [], 'the skip ends with the refusal');
    t.same(rig.refusals.list(), []);
  },
);

t.test('a GitHub outage: the rest is done, then the source is retried; the retry creates one deployment', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.workload('api', API);
  rig.source(READY, ['web', 'api']);
  rig.github.faults = [{ method: 'createDeployment', status: 503, message: 'Service Unavailable', times: 1 }];
  await t.rejects(rig.reconcile(), new RetryLater('1 step(s) failed and will be retried: Service Unavailable'));
  t.same(rig.github.trail('acme', 'api'), [['success']], 'the other workload reported');
  t.same(rig.sources.listSkips(), [], 'an outage is not a skip');
  t.same(rig.refusals.list(), [], 'nor a refusal');

  await rig.reconcile();
  t.same(rig.github.trail('acme', 'web'), [['success']]);
  t.same(rig.github.trail('acme', 'api'), [['success']]);
});

t.test('a registry outage: the workload is skipped with the reason and the source retried', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(READY, ['web']);
  rig.registry.down = true;
  await t.rejects(rig.reconcile(), { name: 'RetryLater', message: /ghcr\.io is unreachable/ });
  t.match(rig.sources.listSkips(), [{ code: 'registry_unavailable', reason: 'ghcr.io is unreachable (ECONNREFUSED)' }]);
  t.same(rig.github.calls, [], 'nothing to publish');

  rig.registry.down = false;
  t.match(await rig.reconcile(), { statusesSent: 1, skipped: 0 });
  t.same(rig.sources.listSkips(), []);
});

t.test('a Kubernetes outage fails the reconcile before anything is recorded', async (t) => {
  const rig = startReconcileRig(t);
  rig.source(READY, []);
  rig.kube.down = 'connect ECONNREFUSED';
  await t.rejects(rig.reconcile(), { name: 'KubeError' });
  t.same(rig.sources.list(), []);
});

t.test('a deleted source: its deployments end after two reads and the grace period', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(READY, ['web']);
  await rig.reconcile();
  rig.kube.remove('Kustomization', SOURCE.namespace, SOURCE.name);

  t.match(await rig.reconcile(), { phase: null, published: 0, statusesSent: 0, recheck: 'cleanup' }, 'first read: wait');
  t.match(rig.sources.list(), [{ phase: 'deleted', reason: 'NotFound', message: 'Kustomization not found' }]);
  rig.clock.now += GRACE_MS / 2;
  t.match(await rig.reconcile(), { recheck: 'cleanup' }, 'second read inside the grace: wait');
  t.same(rig.github.trail('acme', 'web'), [['success']]);

  rig.clock.now += GRACE_MS;
  t.match(await rig.reconcile(), { recheck: null });
  t.same(rig.github.trail('acme', 'web'), [['success', 'inactive']]);
  t.equal(rig.github.deployments[0]!.statuses[1]!.description, 'Flux Kustomization flux-system/apps was deleted');
  const calls = rig.github.calls.length;
  t.match(await rig.reconcile(), { recheck: null });
  t.equal(rig.github.calls.length, calls, 'nothing left to end');
});

t.test('a workload pruned from the inventory ends; one that comes back in time does not', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.workload('api', API);
  rig.source(READY, ['web', 'api']);
  await rig.reconcile();

  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { recheck: 'cleanup' });
  rig.source(READY, ['web', 'api']);
  rig.clock.now += GRACE_MS;
  t.match(await rig.reconcile(), { recheck: null }, 'back in the inventory: the absence is forgotten');
  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { recheck: 'cleanup' }, 'a new absence starts over');
  t.same(rig.github.trail('acme', 'api'), [['success']]);

  rig.clock.now += GRACE_MS;
  t.match(await rig.reconcile(), { recheck: null });
  t.same(rig.github.trail('acme', 'api'), [['success', 'inactive']]);
  t.equal(
    rig.github.deployments.find((d) => d.repo === 'api')!.statuses[1]!.description,
    'removed from the inventory of Kustomization flux-system/apps',
  );
  t.same(rig.github.trail('acme', 'web'), [['success']], 'the workload still listed is untouched');
});

t.test('a workload deleted from the cluster is skipped, then its deployments end', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.source(READY, ['web']);
  await rig.reconcile();
  rig.kube.remove('Deployment', 'apps', 'web');
  t.match(await rig.reconcile(), { skipped: 1, recheck: 'cleanup' });
  t.match(rig.sources.listSkips(), [{ code: 'workload_missing', reason: 'Deployment apps/web not found' }]);
  rig.clock.now += GRACE_MS;
  await rig.reconcile();
  t.equal(rig.github.deployments[0]!.statuses[1]!.description, 'Deployment apps/web no longer exists');
});

t.test('a workload gone with its namespace: the skip and the inactive say the namespace is gone', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  rig.workload('api', API);
  rig.source(READY, ['web', 'api']);
  await rig.reconcile();
  rig.kube.deleteNamespace('apps');
  t.match(await rig.reconcile(), { skipped: 2, recheck: 'cleanup' });
  t.match(rig.sources.listSkips(), [
    { code: 'workload_missing', reason: 'Deployment apps/api not found: namespace apps is gone' },
    { code: 'workload_missing', reason: 'Deployment apps/web not found: namespace apps is gone' },
  ]);
  rig.clock.now += GRACE_MS;
  await rig.reconcile();
  t.same(
    rig.github.deployments.map((d) => d.statuses.at(-1)!.description),
    ['namespace apps was deleted (with Deployment web)', 'namespace apps was deleted (with Deployment api)'],
  );
});

t.test('a source without .status.inventory (a Kustomization not applied yet) is one skip that says so, gone once it has one', async (t) => {
  const rig = startReconcileRig(t);
  rig.workload('web', WEB);
  const bare = kustomization({ ...SOURCE, conditions: READY, inventory: [] });
  delete bare.status?.inventory;
  rig.kube.put(bare);
  t.match(await rig.reconcile(), { published: 0, skipped: 1 });
  t.match(rig.sources.listSkips(), [
    {
      code: 'no_inventory',
      workload: { kind: 'Kustomization', name: 'apps' },
      reason: 'Kustomization has no .status.inventory yet: nothing applied',
    },
  ]);
  rig.source(READY, ['web']);
  t.match(await rig.reconcile(), { published: 1, skipped: 0 });
  t.same(rig.sources.listSkips(), []);
});
