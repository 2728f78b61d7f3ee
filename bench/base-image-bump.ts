/**
 * Benchmark 3c, a platform-wide base-image bump under GitHub's secondary limits (issue 24): WORKLOADS
 * workloads (10 per Kustomization, one repository each) run commit A, live on GitHub (`success`), when every
 * one of them rolls out commit B at once. The simulator enforces GitHub's limits per account (80 writes a
 * minute, 500 an hour: 403 "secondary rate limit" with retry-after) and the bridge runs at its defaults
 * (GITHUB_WRITE_BUDGET 80/1m,500/1h, GITHUB_WRITE_INTERVAL 1s), all of it with time compressed by SCALE
 * (default 1/60: a minute lasts 1 s, an hour 60 s), so the ratios below are what a real hour would show.
 * The primary budget is compressed the same way; the bridge's own pace (reconciles, the 5 s a write may wait
 * in place, the 5 minutes that lift a waiting write one class) is not, so the first compressed seconds let
 * more `in_progress` through than a real minute would, and the `inactive` backlog waits longer.
 * Rollouts take ROLLOUT_S (scaled) seconds. Measured: writes until every workload shows B's `success` (goal:
 * at most 2 a workload: a create and the final status), the `inactive` backlog after it, secondary-limit
 * answers (goal 0), and the time until every workload's final status against the theoretical minimum for the
 * budget (the earliest the budget lets 2 writes a workload through).
 *   node dist/bench/base-image-bump.js                  (needs `npx tsc -p .` first; ~3 min at 500)
 *   WORKLOADS=200 SCALE=0.05 node dist/bench/base-image-bump.js
 */
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { deployment } from '../test/harness/flux-objects.js';
import { startWorld, type World } from '../test/harness/world.js';
import { READY, finishRollout, putKustomization, sha } from '../test/e2e/scenario.js';
import { nextSlots, parseBudget, type BudgetWindow } from '../src/forges/github/write-budget.js';
import { annotated, formatTally, load, say, settled, tally } from './common.js';

const WORKLOADS = Number(process.env.WORKLOADS ?? 500);
const SCALE = Number(process.env.SCALE ?? 1 / 60);
const ROLLOUT_S = Number(process.env.ROLLOUT_S ?? 60);
const PER_SOURCE = 10;
const DEFAULT_BUDGET = '80/1m,500/1h';
const DEFAULT_INTERVAL_MS = 1_000;

const repoOf = (i: number) => `b-${i}`;
const commitOf = (i: number, c: 'a' | 'b') => sha(`bump-${i}-${c}`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const scaled = (ms: number) => ms * SCALE;
const isWrite = (q: { method: string; didWork: boolean }) => q.didWork && q.method !== 'GET';

/** The windows as GITHUB_WRITE_BUDGET text, in scaled milliseconds. */
const budgetEnv = (windows: readonly BudgetWindow[]) => windows.map((w) => `${w.count}/${scaled(w.ms).toFixed(3)}ms`).join(',');

/** Workloads whose deployment of `commit` shows `state` as its latest status. */
function count(world: World, c: 'a' | 'b', state: string): number {
  let n = 0;
  for (let i = 0; i < WORKLOADS; i++) {
    const d = world.github.deployments('acme', repoOf(i)).find((x) => x.sha === commitOf(i, c));
    if (d?.statuses.at(-1)?.state === state) n++;
  }
  return n;
}

const members = (s: number) =>
  Array.from({ length: Math.min(PER_SOURCE, WORKLOADS - s * PER_SOURCE) }, (_, k) => `w-${s * PER_SOURCE + k}`);

/** Every workload at commit `c`, rolled out or rolling; each Kustomization Ready, its event posted. */
async function apply(world: World, bridge: BridgeProcess, c: 'a' | 'b', generation: number, rolling: boolean): Promise<void> {
  for (let i = 0; i < WORKLOADS; i++)
    world.kube.put(
      deployment({
        namespace: 'apps',
        name: `w-${i}`,
        annotations: annotated(repoOf(i), commitOf(i, c)),
        rollout: rolling ? 'progressing' : 'complete',
        containers: [{ name: 'app', image: `registry.invalid/acme/${repoOf(i)}:${commitOf(i, c).slice(0, 7)}` }],
      }),
    );
  const sources = Math.ceil(WORKLOADS / PER_SOURCE);
  for (let s = 0; s < sources; s++) putKustomization(world, `src-${s}`, members(s), READY, generation);
  for (let s = 0; s < sources; s++) {
    const r = await bridge.post(fluxEvent('Kustomization', 'flux-system', `src-${s}`, { reason: 'ReconciliationSucceeded' }));
    if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
  }
}

async function main(): Promise<void> {
  const parsed = parseBudget(DEFAULT_BUDGET);
  if ('problem' in parsed) throw new Error(parsed.problem);
  // The primary budget (5,000 requests an hour for a token) compressed too: the simulator's hour is a real one.
  const world = await startWorld({ github: { secondaryLimits: { scale: SCALE }, requestsPerHour: Math.round(5000 / SCALE) } });
  try {
    // Commit A goes live everywhere with the limits off and no budget: the starting point, not measured.
    world.github.enforceSecondaryLimits(false);
    const seeding = await world.bridge({ GITHUB_WRITE_BUDGET: '1000000/1m', GITHUB_WRITE_INTERVAL: '0s', ENVIRONMENT: 'production' });
    await settled(seeding);
    await apply(world, seeding, 'a', 1, false);
    await seeding.waitFor('A live everywhere', () => count(world, 'a', 'success') === WORKLOADS, 600_000);
    await settled(seeding);
    await seeding.kill('SIGTERM');

    world.github.enforceSecondaryLimits(true);
    const env = {
      GITHUB_WRITE_BUDGET: budgetEnv(parsed),
      GITHUB_WRITE_INTERVAL: `${scaled(DEFAULT_INTERVAL_MS).toFixed(3)}ms`,
      ENVIRONMENT: 'production',
    };
    const bridge = await world.bridge(env);
    await settled(bridge);
    const from = world.github.requests.length;
    say(
      `base-image-bump: ${WORKLOADS} workloads (A live) roll out B at once; GitHub's limits and the bridge's defaults (${DEFAULT_BUDGET}, 1 s floor) scaled ×${SCALE.toFixed(4)} (${env.GITHUB_WRITE_BUDGET}, ${env.GITHUB_WRITE_INTERVAL}); rollout ${ROLLOUT_S} s scaled; ${load()}`,
    );
    const t0 = Date.now();
    await apply(world, bridge, 'b', 2, true);
    await new Promise((r) => setTimeout(r, scaled(ROLLOUT_S * 1000)));
    for (let i = 0; i < WORKLOADS; i++) finishRollout(world, `w-${i}`);

    let lastReport = Date.now();
    /** Waits until every workload's `c` deployment shows `state`, saying how far it got every 20 s. */
    const until = (what: string, c: 'a' | 'b', state: string) =>
      bridge.waitFor(
        what,
        () => {
          const n = count(world, c, state);
          if (Date.now() - lastReport > 20_000) {
            lastReport = Date.now();
            say(
              `  … ${secs(Date.now() - t0)}: ${n}/${WORKLOADS} ${state}, ${world.github.requests.slice(from).filter(isWrite).length} writes; ${load()}`,
            );
          }
          return n === WORKLOADS;
        },
        3_600_000,
      );
    await until('every workload shows B success', 'b', 'success');
    const finalAt = Date.now();
    const atFinal = world.github.requests.slice(from).filter(isWrite);
    const state = await bridge.state();
    say(`  … ${secs(finalAt - t0)}: every workload final; the inactive backlog follows`);
    await until('every A inactive', 'a', 'inactive');
    const inactiveAt = Date.now();
    await settled(bridge);
    const all = world.github.requests.slice(from);
    const writes = all.filter(isWrite);
    const kind = (q: (typeof all)[number]) =>
      q.path.endsWith('/statuses') ? `status ${(q.body as { state: string }).state}` : 'create deployment';

    // The theoretical minimum: 2 writes a workload (create + success) as early as the budget (with its floor) allows.
    const windows = [{ count: 1, ms: scaled(DEFAULT_INTERVAL_MS) }, ...parsed.map((w) => ({ count: w.count, ms: scaled(w.ms) }))];
    const minMs = nextSlots(windows, [], 0, 2 * WORKLOADS).at(-1) ?? 0;
    const minInactiveMs = nextSlots(windows, [], 0, 3 * WORKLOADS).at(-1) ?? 0;
    const took = finalAt - t0;
    const live = atFinal.filter((q) => kind(q) !== 'status inactive').length;
    say(
      `  every workload's final status after ${secs(took)} (${(took / SCALE / 60_000).toFixed(1)} min unscaled); theoretical minimum ${secs(minMs)}; measured ÷ minimum = ${(took / minMs).toFixed(2)}`,
    );
    say(
      `  writes until then: ${atFinal.length} (${live} for B, ${(live / WORKLOADS).toFixed(2)} a workload, goal ≤ 2; ${atFinal.length - live} inactive)`,
    );
    say(
      `  every A inactive after ${secs(inactiveAt - t0)} (minimum ${secs(minInactiveMs)}, ratio ${((inactiveAt - t0) / minInactiveMs).toFixed(2)}); writes in all ${writes.length} (${(writes.length / WORKLOADS).toFixed(2)} a workload)`,
    );
    say(formatTally(tally(writes.map(kind))));
    say(
      `  secondary-limit answers: ${world.github.secondaryRefusals()} (goal 0); 403/429 answers: ${all.filter((q) => q.status === 403 || q.status === 429).length}; GitHub reads ${all.filter((q) => q.method === 'GET').length}; schema violations ${world.github.violations.length}`,
    );
    const scopes = state.github.writeBudget?.scopes ?? [];
    say(
      `  /state at the final status: ${scopes.map((s) => `${s.scope}: ${s.waiting} waiting, drains in ${s.drainsInSeconds} s`).join('; ') || 'no backlog'}`,
    );
    const dup = Array.from({ length: WORKLOADS }, (_, i) => world.github.deployments('acme', repoOf(i)).length).filter(
      (n) => n !== 2,
    ).length;
    say(`  workloads with other than exactly two deployments (A and B): ${dup}; ${load()}`);
  } finally {
    await world.close();
  }
}

await main();
