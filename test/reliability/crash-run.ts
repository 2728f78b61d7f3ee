/**
 * The crash-point machinery shared by the GitHub and Forgejo crash tables: a lifecycle of stages played
 * through the real bridge process, which a simulator hook SIGKILLs at an exact request (when it arrives:
 * the write never lands; or once applied: the answer is lost); a new process then starts on the same
 * database and must reach the interrupted stage. No timing is involved in where the crash falls.
 */
import type { Test } from 'tap';
import { fluxEvent, startBridge, type BridgeProcess } from '../harness/bridge-process.js';
import type { RequestHook } from '../harness/github-sim/hooks.js';
import type { SimRecord } from '../harness/sim-server.js';
import { queueIdle, type StateBody } from '../harness/state-body.js';
import { WEBHOOK_KEY, type World } from '../harness/world.js';

/** Generous: the suite runs on a loaded 2-core machine; a stage normally takes a few seconds. */
const STAGE_TIMEOUT_MS = 90_000;
/** Between two looks at the forge and /state. */
const POLL_MS = 100;

export interface CrashPoint {
  title: string;
  method: 'GET' | 'POST';
  path: RegExp;
  /** Matching requests let through before the one the bridge dies on. */
  skip: number;
  /** `before`: killed as the request arrives, the forge never applies it; `after`: the forge applied it, the answer is lost. */
  when: 'before' | 'after';
  /** Index of the stage the crash falls in. */
  stage: number;
}

/** A crash point, as a table row: `(title, method, path, skip, when, stage)`. */
export const crashPoint = (
  title: string,
  method: CrashPoint['method'],
  path: RegExp,
  skip: number,
  when: CrashPoint['when'],
  stage: number,
): CrashPoint => ({ title, method, path, skip, when, stage });

/** One step of the lifecycle: what changes in the cluster (a Flux event follows, except for the first), and what the forge then holds. */
export interface Stage {
  name: string;
  apply(world: World): void;
  /** Every status the forge must hold per commit, oldest first; at every moment it holds a prefix of the last stage's. */
  trails: Record<string, string[]>;
}

/** The forge can never come back from this (a duplicate): thrown at once rather than waited out. */
export class Diverged extends Error {}

/** A forge simulator, as far as crashes go. */
export interface CrashForge {
  readonly requests: readonly SimRecord[];
  hook(hook: RequestHook): void;
  /** The requests that changed the forge's state. */
  writes(): readonly SimRecord[];
}

export interface PlayOptions<S extends Stage> {
  world: World;
  forge: CrashForge;
  env: Record<string, string>;
  point: CrashPoint | undefined;
  stages: S[];
  /** A commit's statuses on the forge, oldest first, in the stages' words. */
  trailOf(commit: string): string[];
  /** Throws Diverged when the forge holds what the final state excludes (beyond trails); called at every poll. */
  check?(): void;
  /** Whether the bridge's /state (queue idle) shows the stage done. */
  cached(state: StateBody, stage: S): boolean;
}

/** How a run went: the request the bridge died on, and the span of forge requests its successor needed. */
export interface Played {
  crash: { request: SimRecord; killed: Promise<unknown> } | undefined;
  /** Index into the forge's requests where the new process started, and where it had reached the interrupted stage. */
  restartedAt?: number;
  recoveredAt?: number;
}

/** Plays the stages; with a crash point, SIGKILLs the bridge there and restarts it on the same database. */
export async function playStages<S extends Stage>(t: Test, o: PlayOptions<S>): Promise<Played> {
  let current!: Promise<BridgeProcess>;
  const bridges: BridgeProcess[] = [];
  t.teardown(async () => {
    await current.then(
      (b) => b.kill('SIGKILL'),
      () => undefined,
    );
    await Promise.all(bridges.map((b) => b.kill('SIGKILL')));
    await o.world.close();
  });
  const played: Played = { crash: undefined };
  const { point } = o;
  if (point) {
    o.forge.hook({
      method: point.method,
      path: point.path,
      skip: point.skip,
      when: point.when,
      run: (request) => {
        // Set synchronously, before the poller can see what the forge now holds.
        played.crash = { request, killed: current.then((b) => b.kill('SIGKILL')) };
        return played.crash.killed.then(() => 'drop' as const);
      },
    });
  }
  // Bare: without the loaders tap adds to NODE_OPTIONS, which cost seconds of CPU per start on a loaded machine.
  const start = () =>
    startBridge({ env: o.world.env(o.env), webhookKey: WEBHOOK_KEY }).then((b) => {
      bridges.push(b);
      return b;
    });
  const until = <T>(what: string, check: () => Promise<T | false>) => poll(what, bridges, o, check);
  o.stages[0]!.apply(o.world);
  current = start();
  for (const [i, stage] of o.stages.entries()) {
    if (i > 0) {
      stage.apply(o.world);
      const bridge = await current;
      const res = await bridge
        .post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }))
        .catch((e: unknown) => e);
      if (played.crash === undefined || played.restartedAt !== undefined) t.match(res, { status: 202 }, `${stage.name}: event accepted`);
    }
    const outcome = await until(stage.name, async () => {
      if (played.crash !== undefined && played.restartedAt === undefined) return 'crashed' as const;
      return (await reached(o, await current, stage)) && ('reached' as const);
    });
    if (outcome === 'crashed') {
      t.equal(i, point!.stage, `killed during "${stage.name}"`);
      await played.crash!.killed;
      t.equal((await current).child.signalCode, 'SIGKILL', 'the process died of SIGKILL');
      played.restartedAt = o.forge.requests.length;
      current = start();
      await until(`${stage.name} after the restart`, async () => reached(o, await current, stage));
      played.recoveredAt = o.forge.requests.length;
    }
  }
  return played;
}

/** Throws Diverged when a commit's statuses are no prefix of the final ones (a duplicate): the forge can never come back from it. */
function checkPrefixes<S extends Stage>(o: PlayOptions<S>): void {
  o.check?.();
  for (const [commit, final] of Object.entries(o.stages.at(-1)!.trails)) {
    const trail = o.trailOf(commit);
    if (trail.some((state, i) => final[i] !== state)) {
      throw new Diverged(`commit ${commit.slice(0, 7)} shows ${trail.join(' → ')}, not a prefix of ${final.join(' → ')}`);
    }
  }
}

/** The forge shows the stage's trails, and the bridge's /state its rows with the queue idle. */
async function reached<S extends Stage>(o: PlayOptions<S>, bridge: BridgeProcess, stage: S): Promise<boolean> {
  for (const [commit, trail] of Object.entries(stage.trails)) {
    if (JSON.stringify(o.trailOf(commit)) !== JSON.stringify(trail)) return false;
  }
  const s = await bridge.state();
  return queueIdle(s) && o.cached(s, stage);
}

/**
 * Polls until `check` answers a truthy value, checking the trails first; errors other than Diverged
 * count as not yet. Bounded by STAGE_TIMEOUT_MS.
 */
async function poll<S extends Stage, T>(
  what: string,
  bridges: BridgeProcess[],
  o: PlayOptions<S>,
  check: () => Promise<T | false>,
): Promise<T> {
  const deadline = Date.now() + STAGE_TIMEOUT_MS;
  for (;;) {
    let last: unknown;
    checkPrefixes(o);
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
      const calls = o.forge.requests.map((r) => `${r.method} ${r.path} ${r.status ?? '-'}`);
      const trails = Object.keys(o.stages.at(-1)!.trails).map((c) => `${c.slice(0, 7)}: ${o.trailOf(c).join(' → ')}`);
      throw new Error(
        `timed out waiting for ${what}; forge: ${trails.join('; ')}; calls: ${JSON.stringify(calls)}; last error: ${String(last)}\n${logs.join('\n')}`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** What a run cost at the forge. */
export interface Figures {
  /** GET /repos/... requests the bridge made over the whole run. */
  reads: number;
  /** POST /repos/... requests that reached the simulator (applied or not). */
  posts: number;
  /** Writes the forge applied. */
  applied: number;
  /** Reads and POSTs from the restart until the interrupted stage was reached. */
  recovery?: { reads: number; posts: number };
}

const repoCalls = (reqs: readonly SimRecord[], method: string) =>
  reqs.filter((r) => r.method === method && r.path.startsWith('/repos/')).length;

/**
 * Checks the crash itself (killed on the intended request, restarted) and the POSTs: the lifecycle's
 * writes, plus only a write killed before the forge applied it, sent once more; returns the run's figures.
 */
export function crashFigures(t: Test, point: CrashPoint | undefined, played: Played, forge: CrashForge, lifecycleWrites: number): Figures {
  const reqs = forge.requests;
  const posts = repoCalls(reqs, 'POST');
  if (point) {
    t.ok(played.restartedAt !== undefined, 'the bridge was killed and restarted');
    t.match(
      played.crash?.request,
      { method: point.method, status: undefined, didWork: point.when === 'after' },
      'killed on the intended request',
    );
    t.equal(
      posts,
      lifecycleWrites + (point.method === 'POST' && point.when === 'before' ? 1 : 0),
      'POSTs: the lifecycle, plus only the one that never reached the forge',
    );
  } else {
    t.equal(posts, lifecycleWrites, 'POSTs without a crash');
  }
  const recovery = played.restartedAt === undefined ? undefined : reqs.slice(played.restartedAt, played.recoveredAt);
  return {
    reads: repoCalls(reqs, 'GET'),
    posts,
    applied: forge.writes().length,
    ...(recovery ? { recovery: { reads: repoCalls(recovery, 'GET'), posts: repoCalls(recovery, 'POST') } } : {}),
  };
}

/** Runs the baseline and every crash point as subtests, then compares each point's cost with the baseline. */
export function crashTable(
  t: Test,
  title: string,
  points: CrashPoint[],
  play: (t: Test, point: CrashPoint | undefined) => Promise<Figures>,
): void {
  const figures = new Map<string, Figures>();
  t.test(title, { jobs: 6 }, (t) => {
    t.test('no crash (baseline)', async (t) => {
      figures.set('baseline', await play(t, undefined));
    });
    for (const point of points) {
      t.test(`crash point: ${point.title}`, async (t) => {
        figures.set(point.title, await play(t, point));
      });
    }
    t.end();
  });

  t.test('recovery cost per crash point (forge calls beyond a run without a crash)', (t) => {
    const base = figures.get('baseline');
    t.ok(base, 'the baseline ran');
    t.equal(figures.size, points.length + 1, 'every crash point ran');
    if (!base) {
      t.end();
      return;
    }
    t.comment(`baseline: ${base.reads} reads, ${base.posts} POSTs, ${base.applied} applied writes`);
    for (const point of points) {
      const f = figures.get(point.title);
      if (!f) continue;
      t.comment(
        `${point.title}: +${f.reads - base.reads} reads, +${f.posts - base.posts} POSTs (+${f.applied - base.applied} applied); restart to stage reached: ${f.recovery?.reads} reads, ${f.recovery?.posts} POSTs`,
      );
      t.equal(f.applied, base.applied, `${point.title}: no extra applied write`);
    }
    t.end();
  });
}
