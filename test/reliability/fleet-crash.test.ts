/**
 * The crash-point table (crash.test.ts) for a REMOTE Flux object on GitHub: the Kustomization lives in the hub,
 * its Deployment in a spoke, and the hub holds a same-named Deployment of the same repository and commit,
 * reported by a local Kustomization under the hub's cluster. The real bridge process is SIGKILLed at each
 * write of the spoke deployment's life (list, create, each status, superseding), then restarted on the same
 * database. GitHub must end with exactly one deployment per (repository, environment, commit, name, cluster),
 * the spoke's under `cluster: prod-eu`: a bridge that dropped the spoke from a deployment's identity would take
 * the hub's deployment of the same commit for the spoke's (or the other way round) and fail here.
 */
import t, { type Test } from 'tap';
import { PROGRESSING, READY, putKustomization, sha } from '../e2e/scenario.js';
import type { SimDeployment } from '../harness/github-sim.js';
import { putApp, putRemoteKustomization, startSpoke } from '../harness/spokes.js';
import { startWorld, type World } from '../harness/world.js';
import {
  Diverged,
  crashFigures,
  crashTable,
  playStages,
  type CrashPoint,
  type Figures,
  type Stage as BaseStage,
  crashPoint,
} from './crash-run.js';

const A = sha('fleet-crash-a');
const B = sha('fleet-crash-b');
const HUB = 'sim-cluster';
const SPOKE = 'prod-eu';
// The REST find before each create (its list call is a crash point here); batched GraphQL look-ups (the default)
// are held to every crash point by the conformance suite and the first-pass benchmark's SIGKILLs.
const BRIDGE_ENV = { ENVIRONMENT: 'production', GITHUB_WRITE_INTERVAL: '200ms', GITHUB_BATCHED_LOOKUPS: 'false' };

/** Trails and rows are keyed `<cluster>:<commit>`. */
const key = (cluster: string, commit: string) => `${cluster}:${commit}`;

interface Stage extends BaseStage {
  /** The rows /state must show, `<Flux object>:<sha>:<state>`, sorted (no provisional row, no pending mark). */
  cached: string[];
}

/** Builds the stages over the spoke's fake API server (the stages' `world` is the hub's). */
function stages(spokeKube: Parameters<typeof putApp>[0]): Stage[] {
  const remote = (w: World, conditions: typeof READY, generation: number) =>
    putRemoteKustomization(w.kube, 'web', 'web', { secretName: `${SPOKE}-kubeconfig`, conditions, generation });
  return [
    {
      name: "the hub's own web live at A",
      apply: (w) => {
        putApp(w.kube, 'web', 'acme/web', A);
        putKustomization(w, 'hub-web', ['web'], READY, 1);
      },
      trails: { [key(HUB, A)]: ['success'] },
      cached: [`hub-web:${A}:success`],
    },
    {
      name: "the spoke's web rolling out A",
      apply: (w) => {
        putApp(spokeKube, 'web', 'acme/web', A);
        remote(w, PROGRESSING, 1);
      },
      trails: { [key(HUB, A)]: ['success'], [key(SPOKE, A)]: ['in_progress'] },
      cached: [`hub-web:${A}:success`, `web:${A}:in_progress`],
    },
    {
      name: "the spoke's A live",
      apply: (w) => remote(w, READY, 1),
      trails: { [key(HUB, A)]: ['success'], [key(SPOKE, A)]: ['in_progress', 'success'] },
      cached: [`hub-web:${A}:success`, `web:${A}:success`],
    },
    {
      name: "the spoke's B live, its A superseded, the hub's A untouched",
      apply: (w) => {
        putApp(spokeKube, 'web', 'acme/web', B);
        remote(w, READY, 2);
      },
      trails: { [key(HUB, A)]: ['success'], [key(SPOKE, A)]: ['in_progress', 'success', 'inactive'], [key(SPOKE, B)]: ['success'] },
      cached: [`hub-web:${A}:success`, `web:${A}:gone`, `web:${B}:success`],
    },
  ];
}
/** Applied writes: the hub's create and success; the spoke's two creates, in_progress, two successes, inactive. */
const LIFECYCLE_WRITES = 8;

const LIST_OR_CREATE = /\/deployments$/;
const STATUS = /\/statuses$/;
const at = crashPoint;
/** The hub's list, create and status come first (stage 0): every point below falls in the spoke deployment's life. */
const POINTS: CrashPoint[] = [
  at("spoke A's provisional row (killed as its list call arrives)", 'GET', LIST_OR_CREATE, 1, 'before', 1),
  at("after create of spoke A (applied, answer lost: the hub's A is the other candidate)", 'POST', LIST_OR_CREATE, 1, 'after', 1),
  at("spoke A's pending mark for in_progress, before the POST reaches GitHub", 'POST', STATUS, 1, 'before', 1),
  at("after spoke A's in_progress (applied, answer lost)", 'POST', STATUS, 1, 'after', 1),
  at("after spoke A's success (applied, answer lost)", 'POST', STATUS, 2, 'after', 2),
  at('after create of spoke B (applied, answer lost)', 'POST', LIST_OR_CREATE, 2, 'after', 3),
  at("after spoke B's success, before superseding spoke A", 'POST', STATUS, 3, 'after', 3),
  at("spoke A's pending mark for inactive, before the POST reaches GitHub", 'POST', STATUS, 4, 'before', 3),
  at("after spoke A's inactive (applied, answer lost)", 'POST', STATUS, 4, 'after', 3),
];

const clusterOf = (d: SimDeployment) => d.payload.cluster;

/** The deployments of `cluster:commit`; more than one is a duplicate GitHub can never come back from. */
function deploymentsOf(world: World, k: string): SimDeployment[] {
  const [cluster, commit] = k.split(':');
  return world.github.deployments('acme', 'web').filter((d) => d.sha === commit && clusterOf(d) === cluster);
}

function checkOnePerIdentity(world: World): void {
  const seen = new Map<string, number>();
  for (const d of world.github.deployments('acme', 'web')) {
    const k = `${d.environment}/${d.sha}/${d.task}/${String(clusterOf(d))}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  for (const [k, n] of seen) if (n > 1) throw new Diverged(`${n} deployments for ${k}`);
}

async function play(t: Test, point: CrashPoint | undefined): Promise<Figures> {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, SPOKE);
  t.teardown(() => spoke.kube.close());
  const played = await playStages(t, {
    world,
    forge: world.github,
    env: BRIDGE_ENV,
    point,
    stages: stages(spoke.kube),
    trailOf: (k) => deploymentsOf(world, k)[0]?.statuses.map((s) => s.state) ?? [],
    check: () => checkOnePerIdentity(world),
    cached: (s, stage) =>
      JSON.stringify(s.deployments.map((d) => `${d.fluxObject.split('/').at(-1)}:${d.sha}:${d.state}`).sort()) ===
      JSON.stringify([...stage.cached].sort()),
  });

  const ds = world.github.deployments('acme', 'web');
  t.same(
    ds.map((d) => `${String(clusterOf(d))}:${d.sha === A ? 'A' : 'B'}`).sort(),
    [`${HUB}:A`, `${SPOKE}:A`, `${SPOKE}:B`].sort(),
    'one deployment per (repository, environment, commit, name, cluster)',
  );
  for (const d of ds) {
    t.equal(d.environment, 'production');
    t.equal(d.task, 'deploy');
    const states = d.statuses.map((s) => s.state);
    t.equal(new Set(states).size, states.length, `no status repeated: ${states.join(' → ')}`);
  }
  t.match(deploymentsOf(world, key(SPOKE, A))[0]?.payload, {
    cluster: SPOKE,
    namespace: 'apps',
    sourceNamespace: 'flux-system',
    kustomization: 'web',
  });
  t.match(deploymentsOf(world, key(HUB, A))[0]?.payload, { cluster: HUB, kustomization: 'hub-web' });
  t.same(
    deploymentsOf(world, key(HUB, A))[0]?.statuses.map((s) => s.state),
    ['success'],
    "the hub's A ends live, never touched",
  );
  t.same(
    deploymentsOf(world, key(SPOKE, A))[0]?.statuses.map((s) => s.state),
    ['in_progress', 'success', 'inactive'],
    'spoke A ends superseded',
  );
  t.same(
    deploymentsOf(world, key(SPOKE, B))[0]?.statuses.map((s) => s.state),
    ['success'],
    'spoke B ends live',
  );
  t.equal(world.github.writes().length, LIFECYCLE_WRITES, 'no applied write beyond the lifecycle');
  t.same(world.github.violations, [], "every request matched GitHub's schema");
  t.same([...world.kube.writes(), ...spoke.kube.writes()], [], 'nothing written to either cluster');
  return crashFigures(t, point, played, world.github, LIFECYCLE_WRITES);
}

crashTable(t, 'a remote Kustomization: SIGKILL at each write of the spoke deployment, restart on the same database', POINTS, play);
