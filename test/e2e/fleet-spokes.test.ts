/**
 * Several spokes from one hub: two spokes in one environment keep a live deployment each on GitHub and on
 * Forgejo (one spoke's success never ends the other's), and a Flux object's cluster and environment
 * annotations are its workloads' defaults (a workload's own annotation still wins).
 */
import t, { type Test } from 'tap';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { queueIdle } from '../harness/state-body.js';
import { putApp, putRemoteKustomization, startSpoke, type Spoke } from '../harness/spokes.js';
import { startWorld, type World } from '../harness/world.js';
import { sha } from './scenario.js';

const A = sha('fleet-two-spokes-a');
const B = sha('fleet-two-spokes-b');
const TIMEOUT_MS = 60_000;

/** Posts a Ready event for each Flux object and waits until `check` holds and the queue is idle. */
async function step(bridge: BridgeProcess, names: string[], what: string, check: () => boolean): Promise<void> {
  for (const name of names)
    await bridge.post(fluxEvent('Kustomization', 'flux-system', name, { reason: 'ReconciliationSucceeded', message: `${name} ${what}` }));
  await bridge.waitFor(what, async () => check() && queueIdle(await bridge.state()), TIMEOUT_MS);
}

async function twoSpokes(t: Test, world: World, repo = 'acme/web'): Promise<Spoke[]> {
  const spokes = [await startSpoke(world.kube, 'prod-eu'), await startSpoke(world.kube, 'prod-us')];
  t.teardown(async () => {
    await world.close();
    for (const s of spokes) await s.kube.close();
  });
  for (const s of spokes) {
    putApp(s.kube, 'web', repo, A);
    putRemoteKustomization(world.kube, `web-${s.cluster}`, 'web', { secretName: s.secretName });
  }
  return spokes;
}

t.test('GitHub: two spokes, one environment: each keeps its own live deployment and supersedes only its own', async (t) => {
  const world = await startWorld();
  const [eu, us] = await twoSpokes(t, world);
  const bridge = await world.bridge();
  const deployments = () => world.github.deployments('acme', 'web');
  const of = (cluster: string, commit: string) => deployments().find((d) => d.payload.cluster === cluster && d.sha === commit);
  const latest = (cluster: string, commit: string) => of(cluster, commit)?.statuses.at(-1)?.state;
  await step(
    bridge,
    ['web-prod-eu', 'web-prod-us'],
    'A live in both',
    () => latest('prod-eu', A) === 'success' && latest('prod-us', A) === 'success',
  );
  t.equal(deployments().length, 2, 'one deployment of A per spoke');

  putApp(eu!.kube, 'web', 'acme/web', B);
  world.kube.put({ ...world.kube.get('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web-prod-eu')! });
  await step(bridge, ['web-prod-eu'], 'B live in prod-eu', () => latest('prod-eu', B) === 'success' && latest('prod-eu', A) === 'inactive');
  t.same(
    of('prod-us', A)?.statuses.map((s) => s.state),
    ['success'],
    "prod-us still runs A: prod-eu's success did not end it",
  );
  t.same(us!.kube.writes(), []);
  t.same(world.github.violations, []);
});

t.test('Forgejo: two spokes, one environment: one commit status context per spoke', async (t) => {
  const world = await startWorld({ forgejo: true, githubOff: true });
  await twoSpokes(t, world, `${world.forgejo!.url}/acme/web`);
  const bridge = await world.bridge();
  const contexts = () => world.forgejo!.statuses('acme', 'web', A).map((s) => `${s.context} ${s.state}`);
  await step(
    bridge,
    ['web-prod-eu', 'web-prod-us'],
    'both contexts success',
    () => contexts().filter((c) => c.endsWith('success')).length === 2,
  );
  t.same(
    [...new Set(contexts())].filter((c) => c.endsWith('success')).sort(),
    ['deploy/staging (prod-eu) success', 'deploy/staging (prod-us) success'],
    'each spoke its own context',
  );
});

t.test("a Flux object's cluster and environment annotations are its workloads' defaults; a workload's own win", async (t) => {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, 'prod-eu');
  t.teardown(async () => {
    await world.close();
    await spoke.kube.close();
  });
  const p = 'github-deployment-bridge.io/';
  putApp(spoke.kube, 'web', 'acme/web', A);
  putApp(spoke.kube, 'api', 'acme/api', A, { annotations: { [`${p}environment`]: 'canary', [`${p}cluster`]: 'eu-blue' } });
  const annotations = { [`${p}cluster`]: 'eu-1', [`${p}environment`]: 'production' };
  putRemoteKustomization(world.kube, 'web', 'web', { secretName: spoke.secretName, annotations });
  putRemoteKustomization(world.kube, 'api', 'api', { secretName: spoke.secretName, annotations });
  const bridge = await world.bridge();
  const done = (repo: string) => world.github.deployments('acme', repo)[0]?.statuses.some((s) => s.state === 'success') ?? false;
  await step(bridge, ['web', 'api'], 'both reported', () => done('web') && done('api'));
  const [web] = world.github.deployments('acme', 'web');
  const [api] = world.github.deployments('acme', 'api');
  t.match(
    web,
    { environment: 'production', payload: { cluster: 'eu-1' } },
    "the Flux object's annotations, over ENVIRONMENT and the spoke's name",
  );
  t.match(api, { environment: 'canary', payload: { cluster: 'eu-blue' } }, "the workload's own annotations win");
});
