import { Octokit } from 'octokit';
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { GITHUB_TOKEN, startWorld } from '../harness/world.js';
import { PROGRESSING, READY, pushAppImage, putDeployment, putKustomization, sha } from './scenario.js';

const clientStates = (d: { statuses: Array<{ state: string; addedBy: string }> }) =>
  d.statuses.filter((s) => s.addedBy === 'client').map((s) => s.state);

t.test('a create that succeeded but whose answer was lost is found, not repeated', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', sha('lost-1')));
  putKustomization(world, 'web', ['web'], READY);
  world.github.inject({ method: 'POST', path: /\/deployments$/, afterWork: 502 });
  const bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  await bridge.waitFor('success after retry', () =>
    clientStates(world.github.deployments('acme', 'web')[0] ?? { statuses: [] }).includes('success'),
  );
  const creates = world.github.requests.filter((r) => r.method === 'POST' && /\/deployments$/.test(r.path));
  t.equal(creates.length, 1, 'one create only; the retry found it with a list call');
  t.equal(world.github.deployments('acme', 'web').length, 1);
  t.same(clientStates(world.github.deployments('acme', 'web')[0]!), ['success']);
  t.same(world.github.violations, []);
});

t.test('an existing deployment from an earlier install (legacy payload, fresh database) is adopted', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const commit = sha('legacy-1');
  const image = await pushAppImage(world, 'web', '1.0.0', commit);
  putDeployment(world, 'web', image);
  putKustomization(world, 'web', ['web'], READY);
  const gh = new Octokit({ auth: GITHUB_TOKEN, baseUrl: world.github.url, retry: { enabled: false }, throttle: { enabled: false } });
  const old = await gh.rest.repos.createDeployment({
    owner: 'acme',
    repo: 'web',
    ref: commit,
    environment: 'staging',
    auto_merge: false,
    required_contexts: [],
    // The legacy shape: namespace was the Flux object's, no sourceNamespace; an older controllerVersion.
    payload: {
      cluster: 'sim-cluster',
      namespace: 'flux-system',
      kustomization: 'web',
      deploymentName: 'web',
      image,
      controllerVersion: '0.0.1',
    },
  });
  await gh.rest.repos.createDeploymentStatus({
    owner: 'acme',
    repo: 'web',
    deployment_id: (old.data as { id: number }).id,
    state: 'success',
  });
  const before = world.github.writes().length;

  const bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  const state = await bridge.waitFor('adopted', async () => {
    const s = await bridge.state();
    return s.deployments[0]?.state === 'success' && s.queue.pending + s.queue.running === 0 && s;
  });
  t.equal(state.deployments[0]!.deploymentId, (old.data as { id: number }).id);
  t.equal(world.github.writes().length, before, 'no create and no repeated success');
});

t.test('queued work survives a crash; a restart finishes the lifecycle on the same deployment', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', sha('crash-1')));
  putKustomization(world, 'web', ['web'], PROGRESSING);
  let bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  await bridge.waitFor('in progress', () =>
    clientStates(world.github.deployments('acme', 'web')[0] ?? { statuses: [] }).includes('in_progress'),
  );
  await bridge.waitFor('idle', async () => (await bridge.state()).queue.running === 0);

  // The next event is accepted, but the Kubernetes API hangs, and the process is killed mid-work.
  world.kube.inject({ path: /kustomizations\/web/, hang: true });
  putKustomization(world, 'web', ['web'], READY);
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await bridge.kill('SIGKILL');
  t.same(clientStates(world.github.deployments('acme', 'web')[0]!), ['in_progress']);

  // After the restart the resync loop cannot list Flux objects: only the durable queue knows about web.
  world.kube.clearFaults();
  world.kube.inject({ method: 'GET', path: /\/kustomizations(\?|$)/, status: 503, times: Infinity });
  bridge = await world.bridge();
  await bridge.waitFor('success after restart', () => clientStates(world.github.deployments('acme', 'web')[0]!).includes('success'));
  t.equal(world.github.deployments('acme', 'web').length, 1);
  t.same(clientStates(world.github.deployments('acme', 'web')[0]!), ['in_progress', 'success']);
});

t.test('Kubernetes and GitHub outages: the source retries with backoff and nothing is lost', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', sha('outage-1')));
  putKustomization(world, 'web', ['web'], READY);
  world.kube.inject({ path: /kustomizations\/web$/, status: 503, times: 1 });
  world.github.inject({ method: 'POST', path: /\/statuses$/, status: 500, times: 1 });
  const bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  await bridge.waitFor(
    'success',
    () => clientStates(world.github.deployments('acme', 'web')[0] ?? { statuses: [] }).includes('success'),
    30_000,
  );
  t.equal(world.github.deployments('acme', 'web').length, 1);
  t.same(clientStates(world.github.deployments('acme', 'web')[0]!), ['success']);
  t.ok(
    bridge.logs.some((l) => l.msg === 'reconcile failed; will retry'),
    'the failure was logged',
  );
  const metrics = await bridge.metrics();
  t.match(metrics, /gdb_reconciles_total\{outcome="error"\} [1-9]/);
  t.match(
    metrics,
    /gdb_forge_requests_total\{forge="github",operation="POST \/repos\/\{owner\}\/\{repo\}\/deployments\/\{deployment_id\}\/statuses",status="500"\} 1/,
  );
});
