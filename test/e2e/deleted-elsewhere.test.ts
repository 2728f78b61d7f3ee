/**
 * The real bridge process when something it reports on is deleted by someone else: a deployment
 * deleted on GitHub by a person (a new one is created once for the status still due; its cleanup is
 * done without an inactive), and a namespace deleted with its workloads (the inactive says so).
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { deployment, kustomization } from '../harness/flux-objects.js';
import { finishRollout } from '../harness/rollouts.js';
import { queueIdle } from '../harness/state-body.js';
import { namespace } from '../harness/workload-objects.js';
import { GITHUB_TOKEN, startWorld } from '../harness/world.js';
import { OPT_IN, PROGRESSING, READY, clientStates, putDeployment, putKustomization, sha } from './scenario.js';

t.test('a deployment deleted on GitHub: a new one for the status still due, said in the log; its cleanup needs no inactive', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const commit = sha('deleted-1');
  putDeployment(world, 'web', 'ghcr.io/acme/web:1', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'acme/web',
    'github-deployment-bridge.io/commit': commit,
  });
  putKustomization(world, 'web', ['web'], PROGRESSING);
  const bridge = await world.bridge({ CLEANUP_GRACE: '1s', RESYNC_INTERVAL: '2s' });
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  await bridge.waitFor('in progress', () => clientStates(world.github.deployments('acme', 'web')[0]).includes('in_progress'));

  const remove = async (id: number) =>
    (
      await fetch(`${world.github.url}/repos/acme/web/deployments/${id}`, {
        method: 'DELETE',
        headers: { authorization: `token ${GITHUB_TOKEN}` },
      })
    ).status;
  const first = world.github.deployments('acme', 'web')[0]!.id;
  t.equal(await remove(first), 204, 'a person deletes it on GitHub');

  putKustomization(world, 'web', ['web'], READY);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor('success on a new deployment', () => clientStates(world.github.deployments('acme', 'web')[0]).includes('success'));
  const second = world.github.deployments('acme', 'web')[0]!;
  t.not(second.id, first);
  t.same(clientStates(second), ['success']);
  t.match(
    bridge.logs.filter((l) => typeof l.msg === 'string' && l.msg.includes('was deleted on GitHub')),
    [{ msg: `deployment ${first} was deleted on GitHub; creating a new one`, deploymentId: first }],
  );
  let state = await bridge.state();
  t.same(state.skipped, []);
  t.same(state.github.refusals, [], 'not a refusal');
  t.match(state.deployments, [{ deploymentId: second.id, state: 'success' }]);

  // Deleted again, then its workload goes: nothing is left to end, and nothing is retried.
  t.equal(await remove(second.id), 204);
  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web');
  await bridge.waitFor('the cleanup done', () =>
    bridge.logs.some((l) => l.msg === `deployment ${second.id} was deleted on GitHub: nothing left to end`),
  );
  state = await bridge.waitFor('idle', async () => {
    const s = await bridge.state();
    return queueIdle(s) && s;
  });
  t.same(state.deployments, [], 'forgotten');
  t.same(state.fluxObjects, [], 'gone with nothing of it left: the source is forgotten too (no row stays, issue 22)');
  const notFound = () => world.github.requests.filter((r) => r.status === 404).length;
  const seen = notFound();
  await new Promise((r) => setTimeout(r, 3_000));
  t.equal(notFound(), seen, 'no 404 asked again across resyncs');
  t.same(world.github.deployments('acme', 'web'), []);
  t.same(world.github.violations, []);
});

t.test('a namespace deleted with its workload: the inactive says the namespace is gone', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const NS = 'preview-42';
  world.kube.put(namespace(NS));
  world.kube.put(
    deployment({
      namespace: NS,
      name: 'shop',
      annotations: {
        ...OPT_IN,
        'github-deployment-bridge.io/repository': 'acme/shop',
        'github-deployment-bridge.io/commit': sha('ns-1'),
      },
      containers: [{ name: 'app', image: 'ghcr.io/acme/shop:1' }],
    }),
  );
  finishRollout(world.kube, NS, 'shop');
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name: 'preview',
      conditions: READY,
      inventory: [
        { namespace: '', name: NS, group: '', kind: 'Namespace' },
        { namespace: NS, name: 'shop', group: 'apps', kind: 'Deployment' },
      ],
    }),
  );
  const bridge = await world.bridge({ CLEANUP_GRACE: '1s', RESYNC_INTERVAL: '2s' });
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'preview'));
  await bridge.waitFor('live', () => clientStates(world.github.deployments('acme', 'shop')[0]).includes('success'));
  const namespaceReads = () => world.kube.requests.filter((r) => r.path === `/api/v1/namespaces/${NS}`).length;
  t.equal(namespaceReads(), 0, 'the namespace is not read while its workload exists');

  world.kube.delete('v1', 'Namespace', undefined, NS);
  world.kube.delete('apps/v1', 'Deployment', NS, 'shop');
  await bridge.waitFor('inactive', () => clientStates(world.github.deployments('acme', 'shop')[0]).includes('inactive'), 30_000);
  t.equal(world.github.deployments('acme', 'shop')[0]!.statuses.at(-1)!.description, `namespace ${NS} was deleted (with Deployment shop)`);
  t.ok(namespaceReads() >= 2, 'read once per reconcile that found the workload missing');
  t.same(world.github.violations, []);
});
