import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { deployment, helmRelease, kustomization, replicaSet } from '../harness/flux-objects.js';
import { pushImage } from '../harness/push-image.js';
import { startWorld } from '../harness/world.js';
import { OPT_IN, READY, idle, pushAppImage, putDeployment, putKustomization, sha } from './scenario.js';

t.test('opt-out, missing labels and annotation-only workloads in one source', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', sha('mix-web')));
  // Opted out, and its image is on a registry that does not exist: asking it would show as a skip.
  putDeployment(world, 'legacy', '127.0.0.1:9/acme/legacy:1', {});
  // No labels at all.
  await pushImage(world.registry!.url, 'acme/bare', '1', {});
  putDeployment(world, 'bare', `${world.registry!.host}/acme/bare:1`);
  // Annotations name repository and commit: no registry call needed, even for an unreachable registry.
  putDeployment(world, 'annotated', '127.0.0.1:9/acme/annotated:1', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'acme/annotated',
    'github-deployment-bridge.io/commit': sha('annotated'),
    'github-deployment-bridge.io/environment': 'production',
  });
  putKustomization(world, 'apps', ['web', 'legacy', 'bare', 'annotated'], READY);
  const bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'));
  const state = await bridge.waitFor('reconciled', () => idle(bridge));

  t.same(state.deployments.map((d) => d.repo).sort(), ['annotated', 'web']);
  t.equal(state.skipped.length, 1, 'only the opted-in workload without labels is listed');
  t.match(state.skipped[0], {
    workload: 'Deployment/apps/bare',
    container: 'app',
    reason: /org\.opencontainers\.image\.source.*github-deployment-bridge\.io\/repository/,
  });
  const annotated = world.github.deployments('acme', 'annotated')[0]!;
  t.match(annotated, { environment: 'production', production_environment: true });
  t.same(world.github.deployments('acme', 'legacy'), []);
  const metrics = await bridge.metrics();
  t.match(metrics, /gdb_skips_total\{reason="no_repository"\} 1\n/, 'counted once, however often the source is reconciled');
  t.match(metrics, /gdb_skipped_workloads\{reason="no_repository"\} 1\n/);
  t.notMatch(metrics, /not_opted_in/, 'opted-out workloads are not skips');
  t.equal(bridge.logs.filter((l) => l.msg === 'workload not reported').length, 1);

  // The same skip again is not logged again.
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor(
    'second pass',
    async () => bridge.logs.filter((l) => l.msg === 'deployment status sent').length >= 2 && (await idle(bridge)),
  );
  t.equal(bridge.logs.filter((l) => l.msg === 'workload not reported').length, 1, 'a reason is logged once');
});

t.test('resync without any event; a HelmRelease whose inventory names a ReplicaSet reports its Deployment', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const image = await pushAppImage(world, 'chart-app', '3.1.0', sha('chart'));
  const dep = deployment({ namespace: 'apps', name: 'chart-app', annotations: OPT_IN, containers: [{ name: 'app', image }] });
  world.kube.put(dep);
  const rs = world.kube.put(replicaSet({ ownerDeployment: dep }));
  world.kube.put(
    helmRelease({
      namespace: 'flux-system',
      name: 'chart-app',
      conditions: { ready: 'True', reason: 'UpgradeSucceeded', message: 'Helm upgrade succeeded' },
      inventory: [{ namespace: 'apps', name: rs.metadata.name, group: 'apps', kind: 'ReplicaSet' }],
    }),
  );
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', sha('resync-web')));
  world.kube.put(
    kustomization({
      namespace: 'team-a',
      name: 'web',
      conditions: READY,
      inventory: [{ namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' }],
    }),
  );

  const bridge = await world.bridge({ RESYNC_INTERVAL: '1s' });
  await bridge.waitFor(
    'both reported without events',
    () =>
      world.github.deployments('acme', 'chart-app')[0]?.statuses.some((s) => s.state === 'success') &&
      world.github.deployments('acme', 'web')[0]?.statuses.some((s) => s.state === 'success'),
  );
  t.match(world.github.deployments('acme', 'chart-app')[0]!.payload, {
    helmRelease: 'chart-app',
    sourceNamespace: 'flux-system',
    namespace: 'apps',
  });
  t.match(world.github.deployments('acme', 'web')[0]!.payload, { kustomization: 'web', sourceNamespace: 'team-a' });
  t.equal(world.kube.writes().length, 0, 'the bridge never writes to the cluster');
  t.same(world.github.violations, []);
});
