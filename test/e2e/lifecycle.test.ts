import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { queueIdle } from '../harness/state-body.js';
import { startWorld } from '../harness/world.js';
import { HEALTH_FAILED, OPT_IN, PROGRESSING, READY, pushAppImage, putDeployment, putKustomization, sha } from './scenario.js';

const states = (d: { statuses: Array<{ state: string; addedBy: string }> }) =>
  d.statuses.filter((s) => s.addedBy === 'client').map((s) => s.state);

t.test('happy path: in progress then success, one deployment with the full payload', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const commit = sha('web-1');
  const image = await pushAppImage(world, 'web', '1.0.0', commit);
  putDeployment(world, 'web', image, {
    ...OPT_IN,
    'github-deployment-bridge.io/team': 'payments',
    'github-deployment-bridge.io/slack-channel': '#deploys',
  });
  putKustomization(world, 'web', ['web'], PROGRESSING);
  const bridge = await world.bridge({
    ENVIRONMENT_URL: 'https://{service}.example.com',
    LOG_URL_TEMPLATE: 'https://logs.example.com/{namespace}/{name}?sha={sha}',
  });

  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'))).status, 202);
  const [first] = await bridge.waitFor('in_progress', () => {
    const ds = world.github.deployments('acme', 'web');
    return ds.length === 1 && states(ds[0]!).includes('in_progress') && ds;
  });
  t.same(states(first!), ['in_progress']);
  t.match(first, {
    sha: commit,
    ref: commit,
    environment: 'staging',
    task: 'deploy',
    description: 'Deployed by Flux',
    production_environment: false,
    transient_environment: false,
    payload: {
      cluster: 'sim-cluster',
      namespace: 'apps',
      sourceNamespace: 'flux-system',
      kustomization: 'web',
      deploymentName: 'web',
      image,
      version: '1.0.0',
      team: 'payments',
      slackChannel: '#deploys',
    },
  });
  t.match(first!.payload.controllerVersion, /^\d+\.\d+\.\d+/);
  t.match(first!.payload.digest, /^sha256:[0-9a-f]{64}$/);

  putKustomization(world, 'web', ['web'], READY);
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }))).status, 202);
  const [done] = await bridge.waitFor('success', () => {
    const ds = world.github.deployments('acme', 'web');
    return states(ds[0]!).includes('success') && ds;
  });
  t.same(states(done!), ['in_progress', 'success']);
  const success = done!.statuses.at(-1)!;
  t.equal(success.environment_url, 'https://web.example.com');
  t.equal(success.log_url, `https://logs.example.com/apps/web?sha=${commit}`);
  t.same(world.github.violations, [], 'every request matched the GitHub OpenAPI schema');

  const state = await bridge.waitFor('state settled', async () => {
    const s = await bridge.state();
    return queueIdle(s) && s;
  });
  t.match(state.deployments, [
    { owner: 'acme', repo: 'web', environment: 'staging', sha: commit, deploymentName: 'web', deploymentId: done!.id, state: 'success' },
  ]);
  t.same(state.skipped, []);
  t.match(state.queue, { pending: 0, active: 0 });
  t.equal((await bridge.readyz()).status, 200);
});

t.test('catch-up, duplicate events cost nothing, and a failed commit can still succeed', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const commit = sha('api-1');
  putDeployment(world, 'api', await pushAppImage(world, 'api', '2.0.0', commit));
  putKustomization(world, 'api', ['api'], HEALTH_FAILED);
  const bridge = await world.bridge();

  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'api', { severity: 'error', reason: 'HealthCheckFailed' }));
  await bridge.waitFor('failure', () => states(world.github.deployments('acme', 'api')[0] ?? { statuses: [] }).includes('failure'));
  t.same(states(world.github.deployments('acme', 'api')[0]!), ['failure'], 'catch-up sends only the terminal state');

  putKustomization(world, 'api', ['api'], READY);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'api', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor('success', () => states(world.github.deployments('acme', 'api')[0]!).includes('success'));
  t.same(states(world.github.deployments('acme', 'api')[0]!), ['failure', 'success'], 'same deployment, failure then success');

  const writes = world.github.writes().length;
  for (let i = 0; i < 10; i++)
    t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'api', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await bridge.waitFor('queue drained', async () => {
    const s = await bridge.state();
    return s.queue.pending === 0 && s.queue.active === 0 && s.queue.running === 0;
  });
  const reconciles = bridge.logs.filter((l) => l.msg === 'deployment status sent').length;
  t.equal(world.github.writes().length, writes, 'ten repeated events: zero GitHub writes');
  t.equal(reconciles, 2);
  t.equal(world.github.deployments('acme', 'api').length, 1);
  t.same(world.github.violations, []);
});

t.test('a new commit supersedes the previous one', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const a = sha('shop-a');
  const b = sha('shop-b');
  putDeployment(world, 'shop', await pushAppImage(world, 'shop', '1.0.0', a));
  putKustomization(world, 'shop', ['shop'], READY);
  const bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'shop'));
  await bridge.waitFor('a success', () =>
    world.github.deployments('acme', 'shop').some((d) => d.sha === a && states(d).includes('success')),
  );

  putDeployment(world, 'shop', await pushAppImage(world, 'shop', '1.1.0', b));
  putKustomization(world, 'shop', ['shop'], PROGRESSING, 2);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'shop'));
  await bridge.waitFor('b in progress', () =>
    world.github.deployments('acme', 'shop').some((d) => d.sha === b && states(d).includes('in_progress')),
  );
  putKustomization(world, 'shop', ['shop'], READY, 2);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'shop', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor('a inactive', () =>
    world.github.deployments('acme', 'shop').some((d) => d.sha === a && d.statuses.some((s) => s.state === 'inactive')),
  );

  const [da, db] = world.github.deployments('acme', 'shop');
  t.same(
    da!.statuses.map((s) => `${s.state}/${s.addedBy}`),
    ['success/client', 'inactive/client'],
    "the bridge superseded A itself: auto_inactive is off, so GitHub's never reaches another cluster's deployment",
  );
  t.same(states(db!), ['in_progress', 'success']);
  t.equal(world.github.writes().length, 2 + 1 + 2 + 1, 'two creates, three statuses and the inactive: nothing more');
  const state = await bridge.waitFor('cache settled', async () => {
    const s = await bridge.state();
    return queueIdle(s) && s;
  });
  t.same(
    state.deployments.map((d) => `${d.sha.slice(0, 7)}:${d.state}`).sort(),
    [`${a.slice(0, 7)}:gone`, `${b.slice(0, 7)}:success`].sort(),
  );
  t.same(world.github.violations, []);
});
