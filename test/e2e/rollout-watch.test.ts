/**
 * Rollouts that end without any Flux event (Flux `wait: false`: Ready as soon as applied): the bridge's
 * watches of what rolls out see the end. No event is posted and the resync is an hour away, so every
 * final status here comes from a watch; each test also checks that the re-check waiting behind the
 * watch is minutes away, or (when the watch is refused) that the re-check schedule takes over.
 */
import t, { type Test } from 'tap';
import type { BridgeProcess } from '../harness/bridge-process.js';
import { daemonSet, deployment, kustomization, statefulSet, type InventoryRef } from '../harness/flux-objects.js';
import { failRollout, finishDaemonSetRollout, finishRollout, finishStatefulSetRollout } from '../harness/rollouts.js';
import type { KubeObject } from '../harness/fake-kube.js';
import { startWorld, type World } from '../harness/world.js';
import { OPT_IN, READY, sha } from './scenario.js';

const WAKE = 'rollout changed: reconciling its Flux objects';
/** The re-check behind a held watch is at least this far out (WATCHED_RECHECK_MS is 5 min). */
const SAFETY_NET_MS = 4 * 60_000;

/** Opted in, with repository and commit annotated (no registry needed). */
const annotations = (repo: string) => ({
  ...OPT_IN,
  'github-deployment-bridge.io/repository': `acme/${repo}`,
  'github-deployment-bridge.io/commit': sha(repo),
});
const image = (repo: string) => `registry.invalid/acme/${repo}:1.0.0`;
const inv = (kind: string, name: string): InventoryRef => ({ namespace: 'apps', name, group: 'apps', kind });

/** The states GitHub shows for the deployment of `repo`'s commit. */
const trail = (world: World, repo: string) =>
  world.github
    .deployments('acme', repo)
    .find((d) => d.sha === sha(repo))
    ?.statuses.map((s) => s.state) ?? [];
const lastStatus = (world: World, repo: string) => world.github.deployments('acme', repo)[0]?.statuses.at(-1);

/** A Ready Kustomization `flux-system/<name>` (no health checks: Ready once applied) listing `refs`. */
function putReadyKustomization(world: World, name: string, refs: InventoryRef[]): void {
  world.kube.put(kustomization({ namespace: 'flux-system', name, conditions: READY, inventory: refs }));
}

/** A progressing Deployment `web` (paused when asked) under a Ready Kustomization `apps`. */
function putRollingWeb(world: World, o: { replicas?: number; paused?: boolean } = {}): void {
  const web = deployment({
    namespace: 'apps',
    name: 'web',
    annotations: annotations('web'),
    ...(o.replicas === undefined ? {} : { replicas: o.replicas }),
    rollout: 'progressing',
    containers: [{ name: 'app', image: image('web') }],
  });
  world.kube.put(o.paused ? { ...web, spec: { ...web.spec, paused: true } } : web);
  putReadyKustomization(world, 'apps', [inv('Deployment', 'web')]);
}

/** Kubernetes requests for a workload collection in `apps`: its lists and its watches. */
function collectionRequests(world: World, plural: string) {
  const rs = world.kube.requests.filter((r) => r.path === `/apis/apps/v1/namespaces/apps/${plural}`);
  return { lists: rs.filter((r) => r.query.watch !== 'true'), watches: rs.filter((r) => r.query.watch === 'true') };
}

/** Waits until the source's only queue row is its re-check, and checks that it is the safety net minutes away. */
async function recheckIsSafetyNet(t: Test, bridge: BridgeProcess, source: string): Promise<void> {
  const row = await bridge.waitFor(`the re-check of ${source}`, async () => {
    const s = await bridge.state();
    const r = s.queue.items.find((i) => i.name === source);
    return s.queue.active === 0 && s.queue.running === 0 && r?.state === 'pending' && r;
  });
  t.ok(Date.parse(row.notBefore!) - Date.now() > SAFETY_NET_MS, 'the re-check behind the watch is minutes away');
}

const wakes = (bridge: BridgeProcess, workload: string) => bridge.logs.filter((l) => l.msg === WAKE && l.workload === workload).length;

t.test('Deployment, StatefulSet and DaemonSet finish without any Flux event: the watches see it', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations: annotations('web'),
      replicas: 3,
      rollout: 'progressing',
      containers: [{ name: 'app', image: image('web') }],
    }),
  );
  world.kube.put(
    statefulSet({
      namespace: 'apps',
      name: 'db',
      annotations: annotations('db'),
      replicas: 3,
      containers: [{ name: 'db', image: image('db') }],
      status: { currentRevision: 'db-old', updateRevision: 'db-new', updatedReplicas: 1, readyReplicas: 2 },
    }),
  );
  world.kube.put(
    daemonSet({
      namespace: 'apps',
      name: 'agent',
      annotations: annotations('agent'),
      replicas: 4,
      containers: [{ name: 'agent', image: image('agent') }],
      status: { updatedNumberScheduled: 2, numberAvailable: 3 },
    }),
  );
  putReadyKustomization(world, 'apps', [inv('Deployment', 'web'), inv('StatefulSet', 'db'), inv('DaemonSet', 'agent')]);
  // RESYNC_INTERVAL is 1h: only the first pass at start-up reconciles on its own; no event is ever posted.
  const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
  await bridge.waitFor('all three in progress', () => ['web', 'db', 'agent'].every((r) => trail(world, r).includes('in_progress')));
  t.match(lastStatus(world, 'db')!.description, /1\/3 replicas updated/);
  t.match(lastStatus(world, 'agent')!.description, /2\/4 pods updated/);
  await recheckIsSafetyNet(t, bridge, 'apps');

  finishRollout(world.kube, 'apps', 'web');
  await bridge.waitFor('web success', () => trail(world, 'web').includes('success'));
  t.same(trail(world, 'db'), ['in_progress'], 'the StatefulSet is still rolling out');
  finishStatefulSetRollout(world.kube, 'apps', 'db');
  await bridge.waitFor('db success', () => trail(world, 'db').includes('success'));
  finishDaemonSetRollout(world.kube, 'apps', 'agent');
  await bridge.waitFor('agent success', () => trail(world, 'agent').includes('success'));

  for (const repo of ['web', 'db', 'agent']) t.same(trail(world, repo), ['in_progress', 'success'], `${repo}: in progress, then success`);
  t.ok(wakes(bridge, 'Deployment/apps/web') >= 1, 'the Deployment watch woke its source');
  t.ok(wakes(bridge, 'StatefulSet/apps/db') >= 1, 'the StatefulSet watch woke its source');
  t.ok(wakes(bridge, 'DaemonSet/apps/agent') >= 1, 'the DaemonSet watch woke its source');
  for (const plural of ['deployments', 'statefulsets', 'daemonsets']) {
    const rs = world.kube.requests.filter((r) => r.path === `/apis/apps/v1/namespaces/apps/${plural}`);
    const first = rs.findIndex((r) => r.query.watch === 'true');
    t.ok(first > 0, `${plural}: listed, then watched`);
    t.ok(
      rs.slice(first).every((r) => r.query.watch === 'true' && r.query.resourceVersion !== undefined),
      `${plural}: never listed again`,
    );
  }
  await bridge.waitFor('the watches closed once nothing rolls out', () => world.kube.openWatches === 0);
  t.same(world.github.violations, []);
});

t.test('ProgressDeadlineExceeded without a Flux event ends in failure', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  putRollingWeb(world);
  const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
  await bridge.waitFor('in progress', () => trail(world, 'web').includes('in_progress'));
  await recheckIsSafetyNet(t, bridge, 'apps');
  failRollout(world.kube, 'apps', 'web');
  await bridge.waitFor('failure', () => trail(world, 'web').includes('failure'));
  t.same(trail(world, 'web'), ['in_progress', 'failure']);
  t.equal(lastStatus(world, 'web')!.description, 'progress deadline exceeded');
  t.ok(wakes(bridge, 'Deployment/apps/web') >= 1, 'the watch woke the source');
});

/** One progressing Deployment `web` under a Ready Kustomization, shown in progress, its watch open. */
async function rollingOut(t: Test): Promise<{ world: World; bridge: BridgeProcess }> {
  const world = await startWorld();
  t.teardown(() => world.close());
  putRollingWeb(world, { replicas: 2 });
  const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
  await bridge.waitFor('in progress', () => trail(world, 'web').includes('in_progress'));
  await recheckIsSafetyNet(t, bridge, 'apps');
  await bridge.waitFor('the watch is open', () => world.kube.openWatches === 1);
  return { world, bridge };
}

t.test('a watch whose connection drops mid-rollout resumes from its resourceVersion and still sees the end', async (t) => {
  const { world, bridge } = await rollingOut(t);
  const before = collectionRequests(world, 'deployments');
  t.equal(world.kube.dropWatches(), 1);
  // Finished while the bridge is cut off: the resumed watch replays it.
  finishRollout(world.kube, 'apps', 'web');
  await bridge.waitFor('success', () => trail(world, 'web').includes('success'));
  t.same(trail(world, 'web'), ['in_progress', 'success']);
  const after = collectionRequests(world, 'deployments');
  t.equal(after.lists.length, before.lists.length, 'no new list: the watch resumed');
  const resumed = after.watches.slice(before.watches.length);
  t.ok(resumed.length >= 1, 'a new watch after the drop');
  t.equal(resumed[0]!.query.resourceVersion, before.watches.at(-1)!.query.resourceVersion, 'from the version it had reached');
  t.ok(wakes(bridge, 'Deployment/apps/web') >= 1);
});

t.test('a watch ended with 410 Gone lists again and still sees the end', async (t) => {
  const { world, bridge } = await rollingOut(t);
  const before = collectionRequests(world, 'deployments');
  t.equal(world.kube.expireWatches(), 1);
  finishRollout(world.kube, 'apps', 'web');
  await bridge.waitFor('success', () => trail(world, 'web').includes('success'));
  t.same(trail(world, 'web'), ['in_progress', 'success']);
  t.equal(collectionRequests(world, 'deployments').lists.length, before.lists.length + 1, 'listed again after 410');
  t.ok(wakes(bridge, 'Deployment/apps/web') >= 1);
});

t.test('a dropped watch whose version was compacted meanwhile gets 410 on resume, lists again, sees the end', async (t) => {
  const { world, bridge } = await rollingOut(t);
  const before = collectionRequests(world, 'deployments');
  world.kube.dropWatches();
  finishRollout(world.kube, 'apps', 'web');
  world.kube.compact();
  await bridge.waitFor('success', () => trail(world, 'web').includes('success'));
  const after = collectionRequests(world, 'deployments');
  t.equal(after.lists.length, before.lists.length + 1, 'listed again after the resume was refused');
  t.ok(after.watches.length >= before.watches.length + 2, 'the refused resume, then a watch from the new list');
  t.ok(wakes(bridge, 'Deployment/apps/web') >= 1);
});

t.test('a paused Deployment shows "paused" and is not re-checked; resuming it is seen by the watch', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  putRollingWeb(world, { replicas: 2, paused: true });
  const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
  await bridge.waitFor('in progress', () => trail(world, 'web').includes('in_progress'));
  t.match(lastStatus(world, 'web')!.description, /^paused: 1\/2 replicas updated/);
  await bridge.waitFor('the watch is open', () => world.kube.openWatches === 1);
  const s = await bridge.waitFor('idle', async () => {
    const st = await bridge.state();
    return st.queue.pending + st.queue.active + st.queue.running === 0 && st;
  });
  t.same(s.queue.items, [], 'no re-check while paused');

  // `kubectl rollout resume`: spec.paused goes (a new generation), the controller rolls out and finishes.
  const current = world.kube.get('apps/v1', 'Deployment', 'apps', 'web')!;
  const resumed: KubeObject = {
    ...current,
    metadata: { ...current.metadata, generation: undefined },
    spec: { ...current.spec, paused: false },
  };
  world.kube.put(resumed);
  await bridge.waitFor('the resume seen', () => wakes(bridge, 'Deployment/apps/web') >= 1);
  // The forge is told the pause is over: in_progress again, without "paused" (the one repeat the bridge allows).
  await bridge.waitFor('the resume told', () => trail(world, 'web').length === 2);
  t.notMatch(lastStatus(world, 'web')!.description, /^paused/, 'resumed: no longer "paused"');
  finishRollout(world.kube, 'apps', 'web');
  await bridge.waitFor('success', () => trail(world, 'web').includes('success'));
  t.same(trail(world, 'web'), ['in_progress', 'in_progress', 'success']);
});

t.test('without watch RBAC the re-check schedule still ends the rollout', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.kube.allow = [{ group: '*', resource: '*', verbs: ['get', 'list'] }];
  putRollingWeb(world);
  const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
  await bridge.waitFor('in progress', () => trail(world, 'web').includes('in_progress'));
  await bridge.waitFor('the watch refused', () => bridge.logs.some((l) => String(l.msg).startsWith('cannot watch workloads')));
  finishRollout(world.kube, 'apps', 'web');
  await bridge.waitFor('success by re-check', () => trail(world, 'web').includes('success'));
  t.same(trail(world, 'web'), ['in_progress', 'success']);
  t.equal(wakes(bridge, 'Deployment/apps/web'), 0, 'no watch saw it');
  t.ok(
    world.kube.requests.some((r) => r.query.watch === 'true' && r.status === 403),
    'the watch was asked for and refused',
  );
});
