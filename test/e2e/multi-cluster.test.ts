/**
 * Several clusters, one environment (issue 13): two bridges, each with its own database, cluster name
 * and Kubernetes API, report the same app in `staging` to one simulated GitHub. Each cluster's
 * deployment stays live until a newer commit succeeds in that cluster, and no bridge ever writes to
 * the other cluster's deployments. GitHub's `auto_inactive` knows nothing of clusters: left on, one
 * cluster's `success` would mark the other cluster's live deployment inactive.
 */
import t, { type Test } from 'tap';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { startFakeKube, writeKubeconfig, type FakeKube } from '../harness/fake-kube.js';
import { deployment } from '../harness/flux-objects.js';
import type { RecordedRequest, SimDeployment } from '../harness/github-sim.js';
import { finishRollout } from '../harness/rollouts.js';
import { GITHUB_TOKEN, KUBE_TOKEN, startWorld, type World } from '../harness/world.js';
import { OPT_IN, READY, idle, putKustomization, sha } from './scenario.js';

const A = sha('multi-cluster-a');
const B = sha('multi-cluster-b');
/** The second bridge's own token, so the simulator's records tell the two bridges apart. */
const US_TOKEN = 'ghs_simulatedtokenus00000000000000000';
/** Generous: the suite runs on a loaded 2-core machine; a step normally takes a second or two. */
const STEP_TIMEOUT_MS = 60_000;

/** One cluster: its name, its Kubernetes API, its bridge and the GitHub token that bridge uses. */
interface Cluster {
  name: string;
  kube: FakeKube;
  token: string;
  bridge: BridgeProcess;
}

/** The opted-in Deployment apps/web running `commit` in one cluster (repository and commit annotated: no registry), rolled out and Ready. */
function runCommit(world: World, cluster: Pick<Cluster, 'kube'>, commit: string, generation: number): void {
  cluster.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations: { ...OPT_IN, 'github-deployment-bridge.io/repository': 'acme/web', 'github-deployment-bridge.io/commit': commit },
      containers: [{ name: 'app', image: `registry.invalid/acme/web:${commit.slice(0, 7)}` }],
    }),
  );
  finishRollout(cluster.kube, 'apps', 'web');
  putKustomization({ ...world, kube: cluster.kube }, 'web', ['web'], READY, generation);
}

const clusterOf = (d: SimDeployment) => String(d.payload.cluster);
const deploymentOf = (world: World, cluster: string, commit: string) =>
  world.github.deployments('acme', 'web').find((d) => clusterOf(d) === cluster && d.sha === commit);
/** Every status of a deployment, oldest first, with who added it (`client`: a bridge; `github`: auto_inactive). */
const trail = (d: SimDeployment | undefined) => d?.statuses.map((s) => `${s.state}/${s.addedBy}`) ?? [];
const latest = (world: World, cluster: string, commit: string) => deploymentOf(world, cluster, commit)?.statuses.at(-1)?.state;

/** Posts a Ready event to one cluster's bridge and waits until `check` holds and that bridge is idle. */
async function step(t: Test, c: Cluster, what: string, check: () => boolean): Promise<void> {
  t.equal((await c.bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await c.bridge.waitFor(`${c.name}: ${what}`, check, STEP_TIMEOUT_MS);
  await c.bridge.waitFor(`${c.name} idle`, () => idle(c.bridge), STEP_TIMEOUT_MS);
}

/** Writes that touched a deployment of another cluster than the writing bridge's, described. */
function crossWrites(world: World, clusters: Cluster[]): string[] {
  const byToken = new Map(clusters.map((c) => [c.token, c.name]));
  const owner = new Map(world.github.deployments('acme', 'web').map((d) => [d.id, clusterOf(d)]));
  const target = (r: RecordedRequest): string | undefined => {
    const id = /\/deployments\/(\d+)\/statuses$/.exec(r.path)?.[1];
    if (id !== undefined) return owner.get(Number(id));
    return String((r.body as { payload?: { cluster?: unknown } } | undefined)?.payload?.cluster);
  };
  return world.github
    .writes()
    .filter((r) => byToken.get(r.token ?? '') !== target(r))
    .map((r) => `${byToken.get(r.token ?? '') ?? 'unknown bridge'} ${r.method} ${r.path} (cluster ${target(r)})`);
}

t.test('two clusters, one environment: each supersedes only its own deployments', async (t) => {
  const world = await startWorld({ github: { tokens: [GITHUB_TOKEN, US_TOKEN] } });
  const usKube = await startFakeKube({ token: KUBE_TOKEN });
  t.teardown(async () => {
    await world.close();
    await usKube.close();
  });
  const usDir = join(world.dir, 'us');
  mkdirSync(usDir);
  runCommit(world, world, A, 1);
  runCommit(world, { kube: usKube }, A, 1);
  const eu: Cluster = {
    name: 'eu-1',
    kube: world.kube,
    token: GITHUB_TOKEN,
    bridge: await world.bridge({ CLUSTER_NAME: 'eu-1', DATABASE_PATH: join(world.dir, 'eu.db') }),
  };
  const us: Cluster = {
    name: 'us-1',
    kube: usKube,
    token: US_TOKEN,
    bridge: await world.bridge({
      CLUSTER_NAME: 'us-1',
      DATABASE_PATH: join(usDir, 'us.db'),
      KUBECONFIG: writeKubeconfig(usDir, usKube.url, KUBE_TOKEN),
      GITHUB_TOKEN: US_TOKEN,
    }),
  };

  await step(t, eu, 'A success', () => latest(world, 'eu-1', A) === 'success');
  await step(t, us, 'A success', () => latest(world, 'us-1', A) === 'success');
  t.equal(world.github.deployments('acme', 'web').length, 2, 'one deployment of A per cluster: us-1 did not adopt eu-1’s');
  t.same(
    [trail(deploymentOf(world, 'eu-1', A)), trail(deploymentOf(world, 'us-1', A))],
    [['success/client'], ['success/client']],
    'both clusters serve A: both deployments live',
  );

  runCommit(world, eu, B, 2);
  await step(t, eu, 'B success, A inactive', () => latest(world, 'eu-1', B) === 'success' && latest(world, 'eu-1', A) === 'inactive');
  t.same(trail(deploymentOf(world, 'eu-1', A)), ['success/client', 'inactive/client'], 'eu-1 superseded its own A, explicitly');
  t.same(trail(deploymentOf(world, 'us-1', A)), ['success/client'], 'us-1 still serves A: its deployment stays live');

  runCommit(world, us, B, 2);
  await step(t, us, 'B success, A inactive', () => latest(world, 'us-1', B) === 'success' && latest(world, 'us-1', A) === 'inactive');
  const trails = Object.fromEntries(
    world.github.deployments('acme', 'web').map((d) => [`${clusterOf(d)} ${d.sha === A ? 'A' : 'B'}`, trail(d)]),
  );
  t.same(
    trails,
    {
      'eu-1 A': ['success/client', 'inactive/client'],
      'us-1 A': ['success/client', 'inactive/client'],
      'eu-1 B': ['success/client'],
      'us-1 B': ['success/client'],
    },
    'each cluster: its A superseded by its own B; GitHub deactivated nothing on its own',
  );
  t.same(crossWrites(world, [eu, us]), [], 'no bridge wrote to the other cluster’s deployments');
  const successes = world.github.writes().filter((w) => (w.body as { state?: string }).state === 'success');
  t.same(
    successes.map((w) => (w.body as { auto_inactive?: unknown }).auto_inactive),
    [false, false, false, false],
    'every success turns auto_inactive off',
  );
  t.equal(world.github.writes().length, 4 + 4 + 2, 'four creates, four successes, two explicit inactives: nothing more');
  t.same(world.github.violations, [], 'every request matched the GitHub OpenAPI schema');
});
