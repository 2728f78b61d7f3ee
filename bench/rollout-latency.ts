/**
 * Benchmark 5, rollout end latency: Flux without health checks (`wait: false`) says Ready once it has
 * applied, so nothing but the workload's own status says when the pods are up. Measured: time from the
 * API's status change (a Deployment's rollout marked complete in the fake API) to the GitHub simulator
 * receiving the final `success` status, with no Flux event and no resync (RESYNC_INTERVAL=1h); p50/p99
 * - with 1 rollout in flight: COUNT rollouts one after another (each shown in progress first);
 * - with IN_FLIGHT rollouts in flight at once, finishing at random times spread over SPREAD_S seconds;
 * and what it cost: Kubernetes requests by verb (lists, watches, gets) and the most watches open at once.
 * Each rollout is one Deployment in its own Kustomization, repository and commit annotated (no registry).
 * GITHUB_WRITE_INTERVAL is passed to the bridge; unset here means 0 s (spacing off): at GitHub's 1 s between
 * writes, 200 successes need 200 s whatever the bridge does, which is not what this measures. For the same
 * reason GITHUB_WRITE_BUDGET is one nothing reaches unless set (writes plentiful; see bench/base-image-bump.ts).
 *   node dist/bench/rollout-latency.js                          (needs `npx tsc -p .` first)
 *   COUNT=50 IN_FLIGHT=200 SPREAD_S=20 node dist/bench/rollout-latency.js
 *   SPREAD_S=1 RECONCILE_CONCURRENCY=16 node dist/bench/rollout-latency.js   (200 ending at once; RECONCILE_CONCURRENCY passed on)
 */
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { deployment } from '../test/harness/flux-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import { startWorld, type World } from '../test/harness/world.js';
import { READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { deliveredBy, wakesFrom } from '../test/harness/wake-signals.js';
import { annotated, formatTally, kubeEndpoint, load, plentifulBudget, say, settled, tally } from './common.js';
import { median, percentile } from './stats.js';

const COUNT = Number(process.env.COUNT ?? 30);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 200);
const SPREAD_S = Number(process.env.SPREAD_S ?? 20);
const WRITE_INTERVAL = process.env.GITHUB_WRITE_INTERVAL?.trim() || '0s';
const POLL_MS = 2;

const repoOf = (run: string, i: number) => `${run}-${i}`;
const commitOf = (repo: string) => sha(`rollout-latency-${repo}`);
const STATUSES = /^\/repos\/acme\/([^/]+)\/deployments\/\d+\/statuses$/;

/** When the simulator received each repository's `success` status (ms since the epoch). */
function successTimes(world: World, from: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of world.github.requests.slice(from)) {
    const m = STATUSES.exec(r.path);
    if (m && r.method === 'POST' && (r.body as { state?: string }).state === 'success' && !out.has(m[1]!)) out.set(m[1]!, r.time);
  }
  return out;
}

/** Puts a progressing Deployment and its Ready Kustomization, and posts Flux's apply event (shown in progress). */
async function startRollout(world: World, post: (body: string) => Promise<{ status: number }>, repo: string): Promise<void> {
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: repo,
      annotations: annotated(repo, commitOf(repo)),
      replicas: 3,
      rollout: 'progressing',
      containers: [{ name: 'app', image: `registry.invalid/acme/${repo}:1` }],
    }),
  );
  putKustomization(world, repo, [repo], READY);
  const r = await post(fluxEvent('Kustomization', 'flux-system', repo, { reason: 'ReconciliationSucceeded' }));
  if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
}

const inProgress = (world: World, repo: string) =>
  world.github.deployments('acme', repo)[0]?.statuses.some((s) => s.state === 'in_progress') ?? false;

/** Kubernetes requests since `from` (from the first apply: the in-progress reconciles too), by verb, and the most watches open at once. */
function kubeCost(world: World, from: number, maxWatches: number): string {
  const rs = world.kube.requests.slice(from);
  const keys = rs.map((r) => (r.query.watch === 'true' ? 'watch deployments (namespaced)' : kubeEndpoint(r.method, r.path)));
  return `  Kubernetes requests: ${rs.length}; most watches open at once: ${maxWatches}\n${formatTally(tally(keys))}`;
}

const pcts = (ms: number[]) =>
  `p50 ${median(ms).toFixed(0)} ms, p90 ${percentile(ms, 90).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${Math.max(...ms)} ms`;

/**
 * Which path delivered each repository's `success` (its Kustomization has the repository's name), and when the
 * bridge woke for it: the last structured wake (`via`: watch, resync, event; test/harness/wake-signals.ts) of
 * its Kustomization between the status change and the success, or a re-check when there was none.
 */
function deliveries(bridge: BridgeProcess, changes: Map<string, number>, successes: Map<string, number>) {
  const wakes = wakesFrom(bridge.logs);
  return new Map(
    [...changes].map(([repo, from]) => {
      const until = successes.get(repo)!;
      const fluxObject = `Kustomization/flux-system/${repo}`;
      const path = deliveredBy(wakes, fluxObject, from, until);
      const at = wakes.find(
        (w) => w.via === path && w.at >= from && w.at <= until && (w.fluxObjects === 'all' || w.fluxObjects.includes(fluxObject)),
      )?.at;
      return [repo, { path, at }] as const;
    }),
  );
}

/** Prints the latency, which path delivered each status, and the watch's two halves (change → wake, wake → success). */
/**
 * Waits (at most 3 s) until the bridge's log shows a wake for every status: its log lines reach this process
 * through a pipe, after the statuses reached the simulator. Those still without one are counted as re-checks.
 */
async function logsCaughtUp(bridge: BridgeProcess, changes: Map<string, number>, successes: Map<string, number>): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline && [...deliveries(bridge, changes, successes).values()].some((d) => d.path === 're-check'))
    await new Promise((r) => setTimeout(r, 50));
}

async function report(
  label: string,
  bridge: BridgeProcess,
  changes: Map<string, number>,
  successes: Map<string, number>,
  cost: string,
): Promise<void> {
  await logsCaughtUp(bridge, changes, successes);
  const repos = [...changes.keys()];
  const by = deliveries(bridge, changes, successes);
  const total = repos.map((r) => successes.get(r)! - changes.get(r)!);
  const watched = repos.filter((r) => by.get(r)?.path === 'watch' && by.get(r)?.at !== undefined);
  const wakeOf = (r: string) => by.get(r)!.at!;
  say(`rollout-latency: ${label}: ${repos.length} rollouts, status change → success at the simulator: ${pcts(total)}; ${load()}`);
  if (watched.length > 0) {
    say(`  status change → the bridge's watch wakes the Flux object: ${pcts(watched.map((r) => wakeOf(r) - changes.get(r)!))}`);
    say(`  wake → success at the simulator (queue, reconcile, GitHub): ${pcts(watched.map((r) => successes.get(r)! - wakeOf(r)))}`);
  }
  const paths = tally(repos.map((r) => by.get(r)!.path)).map(([path, n]) => `${path} ${n}/${repos.length}`);
  say(`  delivered by: ${paths.join(', ')} (delivered by a watch: ${watched.length}/${repos.length})`);
  say(cost);
}

/** Samples the open watch count until stopped; returns the maximum. */
function watchPeak(world: World): { stop: () => number } {
  let peak = world.kube.openWatches;
  const timer = setInterval(() => (peak = Math.max(peak, world.kube.openWatches)), 10);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

async function one(world: World, bridge: BridgeProcess, post: (body: string) => Promise<{ status: number }>): Promise<void> {
  const changes = new Map<string, number>();
  const successes = new Map<string, number>();
  const kubeFrom = world.kube.requests.length;
  const peak = watchPeak(world);
  for (let i = 0; i < COUNT; i++) {
    const repo = repoOf('one', i);
    await startRollout(world, post, repo);
    await waitUntil(() => inProgress(world, repo) && world.kube.openWatches > 0, `${repo} in progress and watched`);
    const from = world.github.requests.length;
    changes.set(repo, Date.now());
    finishRollout(world.kube, 'apps', repo);
    await waitUntil(() => successTimes(world, from).has(repo), `${repo} success`);
    successes.set(repo, successTimes(world, from).get(repo)!);
  }
  await report('1 in flight', bridge, changes, successes, kubeCost(world, kubeFrom, peak.stop()));
}

async function many(world: World, bridge: BridgeProcess, post: (body: string) => Promise<{ status: number }>): Promise<void> {
  const repos = Array.from({ length: IN_FLIGHT }, (_, i) => repoOf('many', i));
  const kubeFrom = world.kube.requests.length;
  const peak = watchPeak(world);
  for (const repo of repos) await startRollout(world, post, repo);
  await waitUntil(() => repos.every((r) => inProgress(world, r)), `${IN_FLIGHT} in progress`);
  const from = world.github.requests.length;
  // Each finishes at its own random moment within the spread, while the others are still in flight.
  const changedAt = new Map<string, number>();
  await Promise.all(
    repos.map(
      (repo) =>
        new Promise<void>((resolve) =>
          setTimeout(
            () => {
              changedAt.set(repo, Date.now());
              finishRollout(world.kube, 'apps', repo);
              resolve();
            },
            Math.random() * SPREAD_S * 1000,
          ),
        ),
    ),
  );
  await waitUntil(() => successTimes(world, from).size === IN_FLIGHT, `${IN_FLIGHT} successes`, 600_000);
  await report(
    `${IN_FLIGHT} in flight (finishing over ${SPREAD_S} s)`,
    bridge,
    changedAt,
    successTimes(world, from),
    kubeCost(world, kubeFrom, peak.stop()),
  );
}

async function waitUntil(cond: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function main(): Promise<void> {
  const world = await startWorld();
  try {
    // Debug logs carry the structured wakes (`via`): which path woke each Flux object, and when.
    const concurrency: Record<string, string> = process.env.RECONCILE_CONCURRENCY
      ? { RECONCILE_CONCURRENCY: process.env.RECONCILE_CONCURRENCY }
      : {};
    const bridge = await world.bridge({
      GITHUB_WRITE_INTERVAL: WRITE_INTERVAL,
      ...plentifulBudget(),
      WEBHOOK_RATE_PER_MINUTE: '100000',
      LOG_LEVEL: 'debug',
      ...concurrency,
    });
    await settled(bridge);
    say(
      `rollout-latency: GITHUB_WRITE_INTERVAL=${WRITE_INTERVAL}, GITHUB_WRITE_BUDGET=${plentifulBudget().GITHUB_WRITE_BUDGET}, RECONCILE_CONCURRENCY=${process.env.RECONCILE_CONCURRENCY ?? 'default'}, ` +
        `RESYNC_INTERVAL=1h, no Flux event after the apply; ${load()}`,
    );
    const post = (body: string) => bridge.post(body);
    await one(world, bridge, post);
    await many(world, bridge, post);
    if (world.github.violations.length > 0) throw new Error(`schema violations: ${JSON.stringify(world.github.violations[0])}`);
  } finally {
    await world.close();
  }
}

await main();
