/**
 * Crash injection with a real SIGKILL: the bridge process is killed at each step of the create
 * protocol (provisional row → list → create → pending mark → status POST → ... → supersede), then a new
 * process starts on the same database. Crash points are exact, not timed: a simulator hook kills the
 * bridge when the request arrives (the write never reached GitHub) or once GitHub applied it (the
 * bridge never saw the answer). Every run plays the whole lifecycle of two commits and must end in
 * the same GitHub state as a run without a crash, with no extra applied write.
 */
import t, { type Test } from 'tap';
import { deployment } from '../harness/flux-objects.js';
import { startWorld, type World } from '../harness/world.js';
import { OPT_IN, PROGRESSING, READY, finishRollout, putKustomization, sha } from '../e2e/scenario.js';
import { Diverged, crashFigures, crashTable, playStages, type CrashPoint, type Figures, type Stage as BaseStage } from './crash-run.js';

const A = sha('crash-commit-a');
const B = sha('crash-commit-b');
/**
 * Superseding A is the bridge's own write in every environment (auto_inactive is off): one more crash
 * point. Writes spaced 200 ms apart instead of 1 s: the spacing plays no part in crash safety.
 */
const BRIDGE_ENV = { ENVIRONMENT: 'production', GITHUB_WRITE_INTERVAL: '200ms' };

/** The opted-in Deployment apps/web running `commit` (repository and commit annotated: no registry), rollout finished. */
function putWeb(world: World, commit: string): void {
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations: { ...OPT_IN, 'github-deployment-bridge.io/repository': 'acme/web', 'github-deployment-bridge.io/commit': commit },
      containers: [{ name: 'app', image: `registry.invalid/acme/web:${commit.slice(0, 7)}` }],
    }),
  );
  finishRollout(world, 'web');
}

interface Stage extends BaseStage {
  /** The state the bridge's own cache must show per commit (no pending mark left behind). */
  cached: Record<string, string>;
}

const STAGES: Stage[] = [
  {
    name: 'commit A rolling out',
    apply: (w) => {
      putWeb(w, A);
      putKustomization(w, 'web', ['web'], PROGRESSING, 1);
    },
    trails: { [A]: ['in_progress'] },
    cached: { [A]: 'in_progress' },
  },
  {
    name: 'commit A live',
    apply: (w) => putKustomization(w, 'web', ['web'], READY, 1),
    trails: { [A]: ['in_progress', 'success'] },
    cached: { [A]: 'success' },
  },
  {
    name: 'commit B live, A superseded',
    apply: (w) => {
      putWeb(w, B);
      putKustomization(w, 'web', ['web'], READY, 2);
    },
    trails: { [A]: ['in_progress', 'success', 'inactive'], [B]: ['success'] },
    cached: { [A]: 'gone', [B]: 'success' },
  },
];
/** Applied writes of the whole lifecycle: 2 creates + 4 statuses. */
const LIFECYCLE_WRITES = 6;

const LIST_OR_CREATE = /\/deployments$/;
const STATUS = /\/statuses$/;
const POINTS: CrashPoint[] = [
  {
    title: 'after the provisional row (killed as the list call arrives)',
    method: 'GET',
    path: LIST_OR_CREATE,
    skip: 0,
    when: 'before',
    stage: 0,
  },
  {
    title: 'after create (GitHub created it, the answer was lost)',
    method: 'POST',
    path: LIST_OR_CREATE,
    skip: 0,
    when: 'after',
    stage: 0,
  },
  {
    title: 'after the pending mark for in_progress, before the POST reaches GitHub',
    method: 'POST',
    path: STATUS,
    skip: 0,
    when: 'before',
    stage: 0,
  },
  { title: 'after status in_progress (applied, answer lost)', method: 'POST', path: STATUS, skip: 0, when: 'after', stage: 0 },
  { title: 'after status success (applied, answer lost)', method: 'POST', path: STATUS, skip: 1, when: 'after', stage: 1 },
  {
    title: 'after create of the second commit (applied, answer lost)',
    method: 'POST',
    path: LIST_OR_CREATE,
    skip: 1,
    when: 'after',
    stage: 2,
  },
  {
    title: 'after status success of the second commit, before superseding the first',
    method: 'POST',
    path: STATUS,
    skip: 2,
    when: 'after',
    stage: 2,
  },
  {
    title: 'after the pending mark for inactive (superseded), before the POST reaches GitHub',
    method: 'POST',
    path: STATUS,
    skip: 3,
    when: 'before',
    stage: 2,
  },
  {
    title: 'after status inactive of the superseded commit (applied, answer lost)',
    method: 'POST',
    path: STATUS,
    skip: 3,
    when: 'after',
    stage: 2,
  },
];

const trailOf = (world: World, commit: string) =>
  world.github
    .deployments('acme', 'web')
    .find((d) => d.sha === commit)
    ?.statuses.map((s) => s.state) ?? [];

/** GitHub can never come back from a second deployment of a commit. */
function checkOneDeploymentPerCommit(world: World): void {
  for (const commit of [A, B]) {
    const mine = world.github.deployments('acme', 'web').filter((d) => d.sha === commit);
    if (mine.length > 1) throw new Diverged(`${mine.length} deployments for commit ${commit.slice(0, 7)}`);
  }
}

/** Plays the three stages; with a crash point, SIGKILLs the bridge there and restarts it on the same database. */
async function play(t: Test, point: CrashPoint | undefined): Promise<Figures> {
  const world = await startWorld();
  const played = await playStages(t, {
    world,
    forge: world.github,
    env: BRIDGE_ENV,
    point,
    stages: STAGES,
    trailOf: (commit) => trailOf(world, commit),
    check: () => checkOneDeploymentPerCommit(world),
    // The bridge's cache shows each commit's state (no pending mark left behind).
    cached: (s, stage) =>
      Object.entries(stage.cached).every(([commit, state]) => s.deployments.some((d) => d.sha === commit && d.state === state)),
  });

  // The final state, from GitHub's side.
  const ds = world.github.deployments('acme', 'web');
  t.equal(ds.length, 2, 'two deployments: one per commit');
  t.equal(
    new Set(ds.map((d) => `${d.environment}/${d.sha}/${d.task}`)).size,
    2,
    'exactly one deployment per (repo, environment, sha, name)',
  );
  for (const d of ds) {
    const states = d.statuses.map((s) => s.state);
    t.equal(new Set(states).size, states.length, `no status repeated on ${d.sha.slice(0, 7)}: ${states.join(' → ')}`);
  }
  t.same(trailOf(world, A), ['in_progress', 'success', 'inactive'], 'commit A ends superseded');
  t.same(trailOf(world, B), ['success'], 'commit B ends live');
  t.equal(world.github.writes().length, LIFECYCLE_WRITES, 'no applied write beyond the lifecycle');
  t.same(world.github.violations, [], "every request matched GitHub's schema");
  return crashFigures(t, point, played, world.github, LIFECYCLE_WRITES);
}

crashTable(t, 'SIGKILL at each step of the create protocol, restart on the same database', POINTS, play);
