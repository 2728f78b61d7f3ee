/**
 * Crash injection with a real SIGKILL: the bridge process is killed at each step of the create
 * protocol (provisional row → list → create → pending mark → status POST → ... → supersede), then a new
 * process starts on the same database. Crash points are exact, not timed: a simulator hook kills the
 * bridge when the request arrives (the write never reached GitHub) or once GitHub applied it (the
 * bridge never saw the answer). Every run plays the whole lifecycle of two commits and must end in
 * the same GitHub state as a run without a crash, with no extra applied write.
 */
import t, { type Test } from 'tap';
import { fluxEvent, startBridge, type BridgeProcess } from '../harness/bridge-process.js';
import { deployment } from '../harness/flux-objects.js';
import { queueIdle } from '../harness/state-body.js';
import type { RecordedRequest } from '../harness/github-sim.js';
import { WEBHOOK_KEY, startWorld, type World } from '../harness/world.js';
import { OPT_IN, PROGRESSING, READY, finishRollout, putKustomization, sha } from '../e2e/scenario.js';

const A = sha('crash-commit-a');
const B = sha('crash-commit-b');
/**
 * Superseding A is the bridge's own write in every environment (auto_inactive is off): one more crash
 * point. Writes spaced 200 ms apart instead of 1 s: the spacing plays no part in crash safety.
 */
const BRIDGE_ENV = { ENVIRONMENT: 'production', GITHUB_WRITE_INTERVAL: '200ms' };
/** Generous: the suite runs on a loaded 2-core machine; a stage normally takes a few seconds. */
const STAGE_TIMEOUT_MS = 90_000;

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

interface Stage {
  name: string;
  apply(world: World): void;
  /** Every status GitHub must hold per commit, oldest first. */
  trails: Record<string, string[]>;
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
    cached: { [A]: 'inactive', [B]: 'success' },
  },
];
/** Applied writes of the whole lifecycle: 2 creates + 4 statuses. */
const LIFECYCLE_WRITES = 6;

interface CrashPoint {
  title: string;
  method: 'GET' | 'POST';
  path: RegExp;
  /** Matching requests let through before the one the bridge dies on. */
  skip: number;
  /** `before`: killed as the request arrives, GitHub never applies it; `after`: GitHub applied it, the answer is lost. */
  when: 'before' | 'after';
  stage: number;
}

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

interface Figures {
  /** GET /repos/... requests the bridge made over the whole run. */
  reads: number;
  /** POST /repos/... requests that reached the simulator (applied or not). */
  posts: number;
  /** Writes GitHub applied. */
  applied: number;
  /** Reads and POSTs from the restart until the interrupted stage was reached. */
  recovery?: { reads: number; posts: number };
}

const trailOf = (world: World, commit: string) =>
  world.github
    .deployments('acme', 'web')
    .find((d) => d.sha === commit)
    ?.statuses.map((s) => s.state) ?? [];

/** GitHub can never come back from a duplicate: thrown at once rather than waited out. */
class Diverged extends Error {}

/** The statuses each commit ends with; at every moment GitHub must hold a prefix of them. */
const FINAL = STAGES.at(-1)!.trails;

function checkNoDuplicates(world: World): void {
  const ds = world.github.deployments('acme', 'web');
  for (const commit of [A, B]) {
    const mine = ds.filter((d) => d.sha === commit);
    if (mine.length > 1) throw new Diverged(`${mine.length} deployments for commit ${commit.slice(0, 7)}`);
    const trail = mine[0]?.statuses.map((s) => s.state) ?? [];
    if (trail.some((state, i) => FINAL[commit]![i] !== state)) {
      throw new Diverged(`commit ${commit.slice(0, 7)} shows ${trail.join(' → ')}, not a prefix of ${FINAL[commit]!.join(' → ')}`);
    }
  }
}

/** GitHub shows the stage's trails, the bridge's cache its states, and its queue is idle. */
async function reached(world: World, bridge: BridgeProcess, stage: Stage): Promise<boolean> {
  checkNoDuplicates(world);
  for (const [commit, trail] of Object.entries(stage.trails)) {
    if (JSON.stringify(trailOf(world, commit)) !== JSON.stringify(trail)) return false;
  }
  const s = await bridge.state();
  if (!queueIdle(s)) return false;
  return Object.entries(stage.cached).every(([commit, state]) => s.deployments.some((d) => d.sha === commit && d.state === state));
}

/** Polls until `check` answers a truthy value (errors count as not yet); bounded by `STAGE_TIMEOUT_MS`. */
async function until<T>(world: World, bridges: BridgeProcess[], what: string, check: () => Promise<T | false>): Promise<T> {
  const deadline = Date.now() + STAGE_TIMEOUT_MS;
  for (;;) {
    let last: unknown;
    const v = await check().catch((err: unknown) => {
      if (err instanceof Diverged) throw err;
      last = err;
      return false as const;
    });
    if (v) return v;
    if (Date.now() > deadline) {
      const logs = bridges.flatMap((b) => [
        `pid ${b.child.pid}:`,
        ...b.logs.slice(-20).map((l) => JSON.stringify(l).slice(0, 300)),
        b.stderr().slice(-1000),
      ]);
      const calls = world.github.requests.map((r) => `${r.method} ${r.path} ${r.status ?? '-'}`);
      throw new Error(
        `timed out waiting for ${what}; GitHub: ${JSON.stringify({ A: trailOf(world, A), B: trailOf(world, B), calls })}; last error: ${String(last)}\n${logs.join('\n')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const repoCalls = (reqs: readonly RecordedRequest[], method: string) =>
  reqs.filter((r) => r.method === method && r.path.startsWith('/repos/')).length;

/** Plays the three stages; with a crash point, SIGKILLs the bridge there and restarts it on the same database. */
async function play(t: Test, point: CrashPoint | undefined): Promise<Figures> {
  const world = await startWorld();
  let current!: Promise<BridgeProcess>;
  const bridges: BridgeProcess[] = [];
  t.teardown(async () => {
    await current.then(
      (b) => b.kill('SIGKILL'),
      () => undefined,
    );
    await Promise.all(bridges.map((b) => b.kill('SIGKILL')));
    await world.close();
  });
  let crash: { request: RecordedRequest; killed: Promise<unknown> } | undefined;
  if (point) {
    world.github.hook({
      method: point.method,
      path: point.path,
      skip: point.skip,
      when: point.when,
      run: (request) => {
        // Set synchronously, before the poller can see what GitHub now holds.
        crash = { request, killed: current.then((b) => b.kill('SIGKILL')) };
        return crash.killed.then(() => 'drop' as const);
      },
    });
  }
  // Bare: without the loaders tap adds to NODE_OPTIONS, which cost seconds of CPU per start on a loaded machine.
  const start = () =>
    startBridge({ env: world.env(BRIDGE_ENV), webhookKey: WEBHOOK_KEY }).then((b) => {
      bridges.push(b);
      return b;
    });
  STAGES[0]!.apply(world);
  current = start();
  let restartedAt: number | undefined;
  let recoveredAt: number | undefined;
  for (const [i, stage] of STAGES.entries()) {
    if (i > 0) {
      stage.apply(world);
      const bridge = await current;
      const res = await bridge
        .post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }))
        .catch((e: unknown) => e);
      if (crash === undefined || restartedAt !== undefined) t.match(res, { status: 202 }, `${stage.name}: event accepted`);
    }
    const outcome = await until(world, bridges, stage.name, async () => {
      checkNoDuplicates(world);
      if (crash !== undefined && restartedAt === undefined) return 'crashed' as const;
      return (await reached(world, await current, stage)) && ('reached' as const);
    });
    if (outcome === 'crashed') {
      t.equal(i, point!.stage, `killed during "${stage.name}"`);
      await crash!.killed;
      t.equal((await current).child.signalCode, 'SIGKILL', 'the process died of SIGKILL');
      restartedAt = world.github.requests.length;
      current = start();
      await until(world, bridges, `${stage.name} after the restart`, async () => reached(world, await current, stage));
      recoveredAt = world.github.requests.length;
    }
  }

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

  const reqs = world.github.requests;
  const posts = repoCalls(reqs, 'POST');
  if (point) {
    t.ok(restartedAt !== undefined, 'the bridge was killed and restarted');
    t.match(crash?.request, { method: point.method, status: undefined, didWork: point.when === 'after' }, 'killed on the intended request');
    // A write killed before GitHub applied it is sent once more; an applied one never again.
    t.equal(
      posts,
      LIFECYCLE_WRITES + (point.method === 'POST' && point.when === 'before' ? 1 : 0),
      'POSTs: the lifecycle, plus only the one that never reached GitHub',
    );
  } else {
    t.equal(posts, LIFECYCLE_WRITES, 'POSTs without a crash');
  }
  const recovery = restartedAt === undefined ? undefined : reqs.slice(restartedAt, recoveredAt);
  return {
    reads: repoCalls(reqs, 'GET'),
    posts,
    applied: world.github.writes().length,
    ...(recovery ? { recovery: { reads: repoCalls(recovery, 'GET'), posts: repoCalls(recovery, 'POST') } } : {}),
  };
}

const figures = new Map<string, Figures>();

t.test('SIGKILL at each step of the create protocol, restart on the same database', { jobs: 6 }, (t) => {
  t.test('no crash (baseline)', async (t) => {
    figures.set('baseline', await play(t, undefined));
  });
  for (const point of POINTS) {
    t.test(`crash point: ${point.title}`, async (t) => {
      figures.set(point.title, await play(t, point));
    });
  }
  t.end();
});

t.test('recovery cost per crash point (GitHub calls beyond a run without a crash)', (t) => {
  const base = figures.get('baseline');
  t.ok(base, 'the baseline ran');
  t.equal(figures.size, POINTS.length + 1, 'every crash point ran');
  if (!base) {
    t.end();
    return;
  }
  t.comment(`baseline: ${base.reads} reads, ${base.posts} POSTs, ${base.applied} applied writes`);
  for (const point of POINTS) {
    const f = figures.get(point.title);
    if (!f) continue;
    t.comment(
      `${point.title}: +${f.reads - base.reads} reads, +${f.posts - base.posts} POSTs (+${f.applied - base.applied} applied); restart to stage reached: ${f.recovery?.reads} reads, ${f.recovery?.posts} POSTs`,
    );
    t.equal(f.applied, base.applied, `${point.title}: no extra applied write`);
  }
  t.end();
});
