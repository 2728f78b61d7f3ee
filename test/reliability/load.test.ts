/**
 * Reliability 5 (issue 7), load: 200 Flux sources change commit at once while signed Flux events for
 * every source repeat, concurrently, interleaved with Progressing/Ready transitions and rollouts
 * finishing. The real bridge process runs against the fake Kubernetes API and the GitHub simulator with
 * GITHUB_WRITE_INTERVAL=0s (at the default 1 s spacing its ~1,000 writes would take ~17 min). Everything
 * asserted is an exact outcome read from the simulator and the bridge; wall times and ratios are only printed.
 */
import t from 'tap';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { deployment } from '../harness/flux-objects.js';
import type { SimDeployment } from '../harness/github-sim.js';
import { queueIdle } from '../harness/state-body.js';
import { startWorld, type World } from '../harness/world.js';
import { annotated, putAnnotatedDeployment } from '../../bench/common.js';
import { OPT_IN, PROGRESSING, READY, finishRollout, putKustomization, sha } from '../e2e/scenario.js';

const SOURCES = 200;
const OPT_IN_KEY = Object.keys(OPT_IN)[0]!;
/** Every QUIET_EVERY-th Kustomization also applies a workload that is not opted in. */
const QUIET_EVERY = 4;
/** Sources whose event scripts run at once (each fires its own events concurrently). */
const SCRIPTS_AT_ONCE = 25;
/** Sources the bridge reconciles at once (default 4): more interleaving, and a shorter run. */
const CONCURRENCY = 8;
/** Repeated events after everything settled: nothing new, so no GitHub writes. */
const QUIET_REPEATS = 100;
/** Phase deadlines: generous for a loaded 2-core machine; nothing is asserted about them. */
const PHASE_TIMEOUT_MS = 120_000;
/** How often the test looks at the simulator's state. */
const POLL_MS = 250;
/** Status states in the only order a deployment may show them; each at most once. */
const ORDER = ['queued', 'pending', 'in_progress', 'success', 'inactive'];

const app = (i: number) => `app-${String(i).padStart(3, '0')}`;
const quiet = (i: number) => `quiet-${String(i).padStart(3, '0')}`;
const commitA = (i: number) => sha(`load-${i}-a`);
const commitB = (i: number) => sha(`load-${i}-b`);
/** Sources whose rollout waits until GitHub shows the new commit in progress. */
const isHeld = (i: number) => i % 4 < 2;
const inventory = (i: number) => (i % QUIET_EVERY === 0 ? [app(i), quiet(i)] : [app(i)]);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A seeded PRNG (mulberry32), so every run interleaves the same way from the test's side. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `fn` over `items`, at most `n` at once. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const states = (d: SimDeployment): string[] => d.statuses.map((s) => s.state);
/** True when the states follow ORDER strictly: nothing repeated, nothing going back. */
const inOrder = (s: string[]) => s.every((x, k) => ORDER.includes(x) && (k === 0 || ORDER.indexOf(x) > ORDER.indexOf(s[k - 1]!)));
const latest = (world: World, i: number, commit: string) =>
  world.github
    .deployments('acme', app(i))
    .find((d) => d.sha === commit)
    ?.statuses.at(-1)?.state;
function count(world: World, pred: (i: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < SOURCES; i++) if (pred(i)) n++;
  return n;
}

/**
 * Polls `check` every `everyMs` until it holds; throws after `timeoutMs`. Slower than bridge.waitFor's
 * 50 ms: the simulator's snapshots (structured clones) and /metrics cost CPU the bridge needs.
 */
async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = PHASE_TIMEOUT_MS,
  everyMs = POLL_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The bridge's queue is empty and nothing runs (bench/common.ts settled(), polled less often). */
async function drained(bridge: BridgeProcess): Promise<void> {
  await until(
    'queue drained',
    async () => {
      return queueIdle(await bridge.state());
    },
    PHASE_TIMEOUT_MS,
    1_000,
  );
}

/** Events accepted by the bridge, from its own counter. */
async function acceptedByBridge(bridge: BridgeProcess): Promise<number> {
  const text = String((await bridge.get('/metrics')).body);
  return Number(/gdb_events_total\{kind="Kustomization",result="accepted"\} (\d+)/.exec(text)?.[1] ?? 0);
}

t.test('200 sources change at once under repeated events: right final state, no duplicates', async (t) => {
  const started = Date.now();
  const world = await startWorld();
  t.teardown(() => world.close());
  const rnd = prng(0x5eed);

  for (let i = 0; i < SOURCES; i++) {
    putAnnotatedDeployment(world, app(i), app(i), commitA(i));
    if (i % QUIET_EVERY === 0) {
      // Names a repository and commit, but is not opted in (half say "false", half say nothing).
      const named = Object.fromEntries(Object.entries(annotated(quiet(i), commitA(i))).filter(([k]) => k !== OPT_IN_KEY));
      const annotations = i % 8 === 0 ? { ...named, [OPT_IN_KEY]: 'false' } : named;
      world.kube.put(
        deployment({
          namespace: 'apps',
          name: quiet(i),
          annotations,
          containers: [{ name: 'app', image: `registry.invalid/acme/${quiet(i)}:1` }],
        }),
      );
      finishRollout(world, quiet(i));
    }
    putKustomization(world, app(i), inventory(i), READY, 1);
  }
  // Writes plentiful: this measures the bridge, not GitHub's secondary limits (GITHUB_WRITE_BUDGET out of reach).
  const bridge = await world.bridge({
    GITHUB_WRITE_INTERVAL: '0s',
    GITHUB_WRITE_BUDGET: '1000000/1m',
    RECONCILE_CONCURRENCY: String(CONCURRENCY),
  });

  // Phase 1: the start-up resync pass reports every workload at commit A.
  await until(
    'all 200 at A success',
    () => count(world, (i) => latest(world, i, commitA(i)) === 'success') === SOURCES,
    PHASE_TIMEOUT_MS,
    1_000,
  );
  await drained(bridge);
  const phase1Ms = Date.now() - started;
  const writes1 = world.github.writes().length;
  const requests1 = world.github.requests.length;

  // Phase 2: every source gets a new commit at once: the Deployment rolls out B, Flux reconciles generation 2.
  const changeAt = Date.now();
  for (let i = 0; i < SOURCES; i++) {
    world.kube.put(
      deployment({
        namespace: 'apps',
        name: app(i),
        annotations: annotated(app(i), commitB(i)),
        rollout: 'progressing',
        containers: [{ name: 'app', image: `registry.invalid/acme/${app(i)}:${commitB(i).slice(0, 7)}` }],
      }),
    );
    putKustomization(world, app(i), inventory(i), PROGRESSING, 2);
  }
  const answers: number[] = [];
  const fire = (i: number, times: number, reason: string) =>
    Promise.all(
      Array.from({ length: times }, async () => {
        const res = await bridge.post(
          fluxEvent('Kustomization', 'flux-system', app(i), {
            reason,
            message: `Deployment/apps/${app(i)} configured`,
            revision: `main@sha1:${commitB(i)}`,
          }),
        );
        answers.push(res.status);
      }),
    );
  // Jitter between steps, so the bridge's reads land before, between and after the transitions.
  const jitter = () => new Promise((r) => setTimeout(r, Math.floor(rnd() * 40)));
  // Half the sources hold their rollout until GitHub shows B in progress (the whole lifecycle is seen);
  // the other half race the bridge. Half of each have Flux health checks (Ready only after the rollout).
  const shows = (i: number, state: string) => () =>
    world.github.deployments('acme', app(i)).some((d) => d.sha === commitB(i) && states(d).includes(state));
  await pool(
    Array.from({ length: SOURCES }, (_, i) => i),
    SCRIPTS_AT_ONCE,
    async (i) => {
      const hold = isHeld(i);
      if (i % 2 === 0) {
        // Flux with health checks: Ready only once the rollout finished.
        await fire(i, 2, 'Progressing');
        if (hold) await until(`${app(i)} B in_progress`, shows(i, 'in_progress'));
        else await jitter();
        finishRollout(world, app(i));
        putKustomization(world, app(i), inventory(i), READY, 2);
        await fire(i, 3, 'ReconciliationSucceeded');
      } else {
        // Flux without health checks: Ready while the pods still roll out; the rollout finishes later.
        await fire(i, 1, 'Progressing');
        putKustomization(world, app(i), inventory(i), READY, 2);
        await Promise.all([fire(i, 2, 'ReconciliationSucceeded'), jitter()]);
        if (hold) await until(`${app(i)} B in_progress`, shows(i, 'in_progress'));
        finishRollout(world, app(i));
        await fire(i, 2, 'ReconciliationSucceeded');
      }
    },
  );
  const eventsMs = Date.now() - changeAt;
  await until(
    'all 200 at B success, A inactive',
    () => count(world, (i) => latest(world, i, commitB(i)) === 'success' && latest(world, i, commitA(i)) === 'inactive') === SOURCES,
    PHASE_TIMEOUT_MS,
    1_000,
  );
  const finalMs = Date.now() - changeAt;
  await drained(bridge);
  const settledMs = Date.now() - changeAt;

  // Every workload: exactly one deployment per commit, the statuses in order and never repeated.
  const bad: string[] = [];
  let expectedWrites = 0;
  const clientStates = new Map<string, number>();
  for (let i = 0; i < SOURCES; i++) {
    const ds = world.github.deployments('acme', app(i));
    const a = ds.filter((d) => d.sha === commitA(i));
    const b = ds.filter((d) => d.sha === commitB(i));
    if (ds.length !== 2 || a.length !== 1 || b.length !== 1) {
      bad.push(`${app(i)}: ${ds.map((d) => d.sha.slice(0, 7)).join(',')}`);
      continue;
    }
    const sa = states(a[0]!);
    const sb = states(b[0]!);
    // A was caught up Ready and rolled out: success at once; the bridge retires it when B succeeds.
    if (sa.join(',') !== 'success,inactive') bad.push(`${app(i)} A: ${sa.join(',')}`);
    if (!inOrder(sb) || sb.at(-1) !== 'success' || (isHeld(i) && !sb.includes('in_progress'))) bad.push(`${app(i)} B: ${sb.join(',')}`);
    for (const d of ds) {
      if (d.environment !== 'staging') bad.push(`${app(i)} environment ${d.environment}`);
      const own = d.statuses.filter((s) => s.addedBy === 'client');
      expectedWrites += 1 + own.length;
      for (const s of own) clientStates.set(s.state, (clientStates.get(s.state) ?? 0) + 1);
    }
  }
  t.same(
    bad,
    [],
    'every workload: one deployment per commit; A success then inactive; B ends success, in_progress where held, no status repeated or going back',
  );

  // Nothing for workloads that are not opted in; every write went to an opted-in repository and shows on GitHub.
  const quietWithDeployments = count(world, (i) => i % QUIET_EVERY === 0 && world.github.deployments('acme', quiet(i)).length > 0);
  t.equal(quietWithDeployments, 0, 'no deployment for a workload that is not opted in');
  const writes = world.github.writes();
  t.same(
    writes
      .filter((w) => !/^\/repos\/acme\/app-\d{3}\/deployments(\/\d+\/statuses)?$/.test(w.path) || w.method !== 'POST')
      .map((w) => `${w.method} ${w.path}`),
    [],
    'only deployment creates and statuses, only in opted-in repositories',
  );
  t.equal(writes.length, expectedWrites, 'every GitHub write is a deployment or status GitHub shows: none wasted, none duplicated');
  t.same(world.github.violations, [], 'no schema or rule violations');

  // Events: every one accepted (the webhook's 1,200/min limit is not reached), the bridge counted the same.
  t.equal(answers.length, SOURCES * 5);
  t.same([...new Set(answers)], [202], 'every event answered 202');
  t.equal(await acceptedByBridge(bridge), answers.length, 'the bridge counted every event as accepted');

  // Drained, and no source left with an error.
  const state = (await bridge.state()) as {
    queue: { pending: number; active: number; running: number; items: unknown[] };
    fluxObjects: Array<{ name: string; lastError: string | null }>;
  };
  t.match(state.queue, { pending: 0, active: 0, running: 0 }, 'queue drained');
  t.same(state.queue.items, []);
  t.same(
    state.fluxObjects.filter((s) => s.lastError !== null).map((s) => `${s.name}: ${s.lastError}`),
    [],
    'no source left with an error',
  );

  // Repeats of events with nothing new cost no GitHub request at all.
  const requestsBefore = world.github.requests.length;
  const quietAnswers: number[] = [];
  await pool(
    Array.from({ length: QUIET_REPEATS }, (_, k) => (k * 7) % SOURCES),
    SCRIPTS_AT_ONCE,
    async (i) => {
      quietAnswers.push(
        (await bridge.post(fluxEvent('Kustomization', 'flux-system', app(i), { reason: 'ReconciliationSucceeded' }))).status,
      );
    },
  );
  t.same([...new Set(quietAnswers)], [202]);
  await drained(bridge);
  t.equal(world.github.requests.length - requestsBefore, 0, `${QUIET_REPEATS} repeated events after settling: no GitHub request`);

  const phase2Writes = writes.length - writes1;
  // A create and a success per commit per workload, A's inactive (the bridge's own: auto_inactive is off),
  // and an in_progress where the test held the rollout for it.
  const held = count(world, isHeld);
  const minimum = 5 * SOURCES + held;
  t.comment(
    `load: ${SOURCES} sources (${count(world, (i) => i % QUIET_EVERY === 0)} with a workload not opted in), GITHUB_WRITE_INTERVAL=0s, RECONCILE_CONCURRENCY=${CONCURRENCY}`,
  );
  t.comment(
    `  phase 1 (start-up resync reports commit A): ${secs(phase1Ms)} wall incl. world start, ${writes1} writes, ${requests1} GitHub requests`,
  );
  t.comment(
    `  phase 2: events fired in ${secs(eventsMs)}; all final on GitHub ${secs(finalMs)} after the change; queue drained at ${secs(settledMs)}`,
  );
  t.comment(`  phase 2: ${phase2Writes} writes, ${world.github.requests.length - requests1} GitHub requests`);
  t.comment(
    `  GitHub writes: ${writes.length} in all, minimum ${minimum} (a create and a success per commit per workload, A's inactive, in_progress for the ${held} held), ratio ${(writes.length / minimum).toFixed(2)}`,
  );
  t.comment(`  client statuses by state: ${[...clientStates].map(([s, n]) => `${s} ${n}`).join(', ')}`);
  t.comment(
    `  events: ${answers.length} sent during the change, ${answers.filter((s) => s === 202).length} accepted; ${QUIET_REPEATS} more after settling, 0 GitHub requests`,
  );
  t.comment(`  test wall time ${secs(Date.now() - started)}`);
});
