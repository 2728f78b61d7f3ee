import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { deployment } from '../harness/flux-objects.js';
import { pushImage } from '../harness/push-image.js';
import { startWorld, type World } from '../harness/world.js';
import { OPT_IN, READY, finishRollout, pushAppImage, putKustomization, sha } from './scenario.js';

const trail = (world: World, repo: string, commit: string) =>
  world.github
    .deployments('acme', repo)
    .find((d) => d.sha === commit)
    ?.statuses.map((s) => s.state) ?? [];

t.test('Flux Ready without health checks: success waits for the rollout, found without another event', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const commit = sha('roll-1');
  const image = await pushAppImage(world, 'web', '1.0.0', commit);
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations: OPT_IN,
      replicas: 3,
      rollout: 'progressing',
      containers: [{ name: 'app', image }],
    }),
  );
  putKustomization(world, 'web', ['web'], READY);
  const bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor('in progress', () => trail(world, 'web', commit).includes('in_progress'));
  const inProgress = world.github.deployments('acme', 'web')[0]!.statuses.at(-1)!;
  t.match(inProgress.description, /2\/3 replicas updated|replicas/);
  t.notOk(trail(world, 'web', commit).includes('success'), 'no success while pods roll out');

  finishRollout(world, 'web');
  await bridge.waitFor('success by re-check', () => trail(world, 'web', commit).includes('success'), 60_000);
  t.same(trail(world, 'web', commit), ['in_progress', 'success']);
  t.same(world.github.violations, []);
});

t.test('a preview Kustomization deleted, and a workload pruned from an inventory, end inactive', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const web = sha('preview-web');
  const api = sha('preview-api');
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations: { ...OPT_IN, 'github-deployment-bridge.io/environment': 'pr-42' },
      containers: [{ name: 'app', image: await pushAppImage(world, 'web', 'pr-42', web) }],
    }),
  );
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'api',
      annotations: OPT_IN,
      containers: [{ name: 'app', image: await pushAppImage(world, 'api', '1.0.0', api) }],
    }),
  );
  putKustomization(world, 'preview', ['web'], READY);
  putKustomization(world, 'apps', ['api'], READY);
  const bridge = await world.bridge({ TRANSIENT_ENVIRONMENTS: 'pr-*', CLEANUP_GRACE: '1s', RESYNC_INTERVAL: '2s' });
  await bridge.waitFor(
    'both live',
    () => trail(world, 'web', web).includes('success') && trail(world, 'api', api).includes('success'),
    30_000,
  );
  t.match(world.github.deployments('acme', 'web')[0], { environment: 'pr-42', transient_environment: true });

  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'preview');
  world.kube.delete('apps/v1', 'Deployment', 'apps', 'web');
  putKustomization(world, 'apps', [], READY, 2);
  await bridge.waitFor(
    'both inactive',
    () => trail(world, 'web', web).includes('inactive') && trail(world, 'api', api).includes('inactive'),
    60_000,
  );
  t.match(world.github.deployments('acme', 'web')[0]!.statuses.at(-1)!.description, /Kustomization flux-system\/preview was deleted/);
  t.match(
    world.github.deployments('acme', 'api')[0]!.statuses.at(-1)!.description,
    /removed from the inventory of Kustomization flux-system\/apps/,
  );
  t.same(world.github.violations, []);
});

t.test('monorepo siblings keep their own lineage; a sidecar without labels is dropped silently', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const a1 = sha('mono-api-1');
  const w1 = sha('mono-worker-1');
  const a2 = sha('mono-api-2');
  await pushImage(world.registry!.url, 'acme/envoy', '1.30', {});
  const sidecar = { name: 'envoy', image: `${world.registry!.host}/acme/envoy:1.30` };
  const put = async (name: string, tag: string, commit: string) =>
    world.kube.put(
      deployment({
        namespace: 'apps',
        name,
        annotations: { ...OPT_IN, 'github-deployment-bridge.io/deployment-name': name },
        containers: [{ name: 'app', image: await pushAppImage(world, 'mono', `${name}-${tag}`, commit) }, sidecar],
      }),
    );
  await put('api', '1', a1);
  await put('worker', '1', w1);
  putKustomization(world, 'mono', ['api', 'worker'], READY);
  const bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'mono'));
  await bridge.waitFor(
    'both live',
    () => trail(world, 'mono', a1).includes('success') && trail(world, 'mono', w1).includes('success'),
    30_000,
  );
  t.same(
    world.github
      .deployments('acme', 'mono')
      .map((d) => d.task)
      .sort(),
    ['api', 'worker'],
    'deployment-name is the task',
  );

  await put('api', '2', a2);
  finishRollout(world, 'api');
  putKustomization(world, 'mono', ['api', 'worker'], READY, 2);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'mono'));
  await bridge.waitFor('api 1 inactive', () => trail(world, 'mono', a1).includes('inactive'), 30_000);
  t.same(trail(world, 'mono', w1), ['success'], 'the sibling stays live: auto_inactive was false');
  t.same(trail(world, 'mono', a2), ['success']);
  const state = await bridge.state();
  t.same(state.skipped, [], 'the envoy sidecar without labels is not listed as skipped');
});

t.test('two workloads of one repository without deployment-name settle: no write loop', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const api = sha('shared-api');
  const worker = sha('shared-worker');
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'api',
      annotations: OPT_IN,
      containers: [{ name: 'app', image: await pushAppImage(world, 'shared', 'api', api) }],
    }),
  );
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'worker',
      annotations: OPT_IN,
      containers: [{ name: 'app', image: await pushAppImage(world, 'shared', 'worker', worker) }],
    }),
  );
  putKustomization(world, 'shared', ['api', 'worker'], READY);
  const bridge = await world.bridge({ RESYNC_INTERVAL: '1s' });
  await bridge.waitFor(
    'both reported',
    () => trail(world, 'shared', api).includes('success') && trail(world, 'shared', worker).includes('success'),
    30_000,
  );
  const writes = world.github.writes().length;
  const reads = new Set<string | null>();
  await bridge.waitFor(
    'five more reconciles',
    async () => {
      reads.add((await bridge.state()).fluxObjects[0]!.lastSeen);
      return reads.size > 5;
    },
    30_000,
  );
  t.equal(world.github.writes().length, writes, 'resyncs with nothing changed write nothing');
  t.equal(world.github.deployments('acme', 'shared').length, 2);
});
