/**
 * Benchmark: the first pass over WORKLOADS new workloads (default 20,000: REPOS = WORKLOADS / 4 repositories,
 * 4 environments each, 20 workloads per Kustomization over 10 namespaces), the simulator at GitHub's own
 * budgets (5,000 REST requests an hour per token, 5,000 GraphQL points). Before (`GITHUB_BATCHED_LOOKUPS=false`:
 * one REST find per new deployment) and after (the batched look-ups), both DRY_RUN like bench/resync-cost.ts (the
 * pass's creates would take GitHub's secondary limits 40 h at 500 writes an hour; its reads are what is measured):
 * GitHub REST reads, GraphQL queries and points, rate-limit pauses and refusals, and the time until every
 * workload shows its state (the queue drained). "Before" stops at its first pause: GitHub work then waits for the
 * hour's reset. Then KILL_WORKLOADS (default 2,000) workloads with real writes (no spacing, budget plentiful),
 * the bridge SIGKILLed KILLS times during the pass and started again over its database: duplicates counted.
 *   npx tsc -p . && node dist/bench/first-pass.js
 *   WORKLOADS=2000 KILL_WORKLOADS=400 node dist/bench/first-pass.js
 */
import { deployment, kustomization } from '../test/harness/flux-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import { startWorld, type World } from '../test/harness/world.js';
import { READY, sha } from '../test/e2e/scenario.js';
import type { BridgeProcess } from '../test/harness/bridge-process.js';
import { queueIdle } from '../test/harness/state-body.js';
import { annotated, load, plentifulBudget, say, settled } from './common.js';

const WORKLOADS = Number(process.env.WORKLOADS ?? 20_000);
const KILL_WORKLOADS = Number(process.env.KILL_WORKLOADS ?? 2_000);
const KILLS = Number(process.env.KILLS ?? 3);
const MODES = (process.env.MODES ?? 'before,after').split(',').filter(Boolean);
const ENVS = 4;
const PER_SOURCE = 20;
const STALL_MS = 30_000;
const NAMESPACES = 10;

/** `n` workloads: repository i / 4, environment i % 4, one Kustomization per PER_SOURCE. */
function populate(world: World, n: number): void {
  for (let s = 0; s < n / PER_SOURCE; s++) {
    const ns = `team-${s % NAMESPACES}`;
    const names: string[] = [];
    for (let k = 0; k < PER_SOURCE && s * PER_SOURCE + k < n; k++) {
      const i = s * PER_SOURCE + k;
      const name = `w-${i}`;
      names.push(name);
      const repo = `r-${Math.floor(i / ENVS)}`;
      world.kube.put(
        deployment({
          namespace: ns,
          name,
          annotations: { ...annotated(repo, sha(repo)), 'github-deployment-bridge.io/environment': `env-${i % ENVS}` },
          containers: [{ name: 'app', image: `registry.invalid/acme/${repo}:1` }],
        }),
      );
      finishRollout(world.kube, ns, name);
    }
    world.kube.put(
      kustomization({
        namespace: 'flux-system',
        name: `src-${s}`,
        conditions: READY,
        inventory: names.map((name) => ({ namespace: ns, name, group: 'apps', kind: 'Deployment' })),
      }),
    );
  }
}

/** Rate-limit pauses of GitHub work so far (a refusal's, or a success that spent the budget's last request). */
async function pausesOf(bridge: BridgeProcess): Promise<number> {
  const text = await bridge.metrics();
  return [...text.matchAll(/^gdb_forge_pauses_total\{[^}]*forge="github"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

const shownOf = (bridge: BridgeProcess) => bridge.logs.filter((l) => l.msg === 'DRY_RUN: would create a GitHub deployment').length;

/** Until every workload is shown and the queue drained, GitHub work pauses, or nothing moves for STALL_MS (held back): no GitHub request, no workload shown. */
function settledOrPaused(world: World, bridge: BridgeProcess): Promise<'settled' | 'paused' | 'held back'> {
  let seen = -1;
  let since = Date.now();
  return bridge.waitFor(
    'queue drained or GitHub paused',
    async () => {
      // A busy bridge may not answer a poll in time: the next one asks again.
      const idle = () => bridge.state().then(queueIdle, () => false);
      if ((await pausesOf(bridge).catch(() => 0)) > 0) return 'paused';
      if (shownOf(bridge) >= WORKLOADS && (await idle())) return 'settled';
      // Progress is a GitHub request or a workload shown (a batched answer is taken without any request).
      const n = world.github.requests.length + shownOf(bridge);
      if (n !== seen) [seen, since] = [n, Date.now()];
      return Date.now() - since > STALL_MS ? 'held back' : false;
    },
    3_600_000,
  );
}

async function firstPass(mode: string): Promise<void> {
  const world = await startWorld({});
  try {
    populate(world, WORKLOADS);
    const t0 = Date.now();
    const bridge = await world.bridge({
      DRY_RUN: 'true',
      LOG_LEVEL: 'info',
      GITHUB_BATCHED_LOOKUPS: mode === 'after' ? 'true' : 'false',
    });
    const end = await settledOrPaused(world, bridge);
    const ms = Date.now() - t0;
    const gh = world.github.requests;
    const rest = gh.filter((r) => r.method === 'GET' && r.path.startsWith('/repos/')).length;
    const graphql = world.github.graphqlQueries().length;
    const shown = shownOf(bridge);
    const pauses = await pausesOf(bridge);
    const refused = gh.filter((r) => r.status === 403 || r.status === 429).length + world.github.points.refused;
    const lookups = ((await bridge.state().catch(() => undefined))?.github as { batchedLookups?: unknown } | undefined)?.batchedLookups;
    const rested = bridge.logs.filter((l) => l.msg === 'batched GitHub look-ups failed: finding deployments over REST for now');
    say(
      `first-pass ${mode}: ${WORKLOADS} workloads (${WORKLOADS / ENVS} repositories × ${ENVS} environments): ` +
        `${end === 'settled' ? `every workload shown after ${(ms / 1000).toFixed(1)} s` : `${end} after ${(ms / 1000).toFixed(1)} s (stall of ${STALL_MS / 1000} s included) with ${shown} of ${WORKLOADS} shown; the rest waits for the hour's reset`}; ` +
        `REST reads ${rest} (${(rest / WORKLOADS).toFixed(3)} per workload), GraphQL queries ${graphql} (${world.github.points.spent()} points), ` +
        `pauses ${pauses}, refusals ${refused}; ${load()}`,
    );
    if (lookups !== undefined) say(`first-pass ${mode}: /state github.batchedLookups ${JSON.stringify(lookups)}`);
    for (const l of rested) say(`first-pass ${mode}: GraphQL rested: ${String(l.reason)}`);
  } finally {
    await world.close();
  }
}

/** Real creates with SIGKILLs during the pass: deployments per (repository, environment) beyond one. */
async function killedPass(): Promise<void> {
  const world = await startWorld({ github: { requestsPerHour: 1_000_000 } });
  try {
    populate(world, KILL_WORKLOADS);
    const env = { GITHUB_WRITE_INTERVAL: '0s', ...plentifulBudget(), LOG_LEVEL: 'info' };
    const creates = () => world.github.writes().filter((w) => /\/deployments$/.test(w.path)).length;
    let bridge = await world.bridge(env);
    const t0 = Date.now();
    for (let k = 1; k <= KILLS; k++) {
      const at = Math.round((KILL_WORKLOADS * k) / (KILLS + 1));
      await bridge.waitFor(`${at} creates`, () => creates() >= at, 600_000);
      await bridge.kill('SIGKILL');
      bridge = await world.bridge(env);
    }
    await settled(bridge, 3_600_000);
    const ms = Date.now() - t0;
    let deployments = 0;
    let duplicates = 0;
    for (let r = 0; r < KILL_WORKLOADS / ENVS; r++) {
      const byEnv = new Map<string, number>();
      for (const d of world.github.deployments('acme', `r-${r}`)) byEnv.set(d.environment, (byEnv.get(d.environment) ?? 0) + 1);
      for (const n of byEnv.values()) {
        deployments += n;
        duplicates += n - 1;
      }
    }
    const rest = world.github.requests.filter((q) => q.method === 'GET' && q.path.startsWith('/repos/')).length;
    const refused = world.github.requests.filter((r) => r.status === 403 || r.status === 429).length + world.github.points.refused;
    say(
      `first-pass with ${KILLS} SIGKILLs: ${KILL_WORKLOADS} workloads, real writes, ${(ms / 1000).toFixed(1)} s; ` +
        `${deployments} deployments, duplicates ${duplicates}; REST reads ${rest}, GraphQL queries ${world.github.graphqlQueries().length}, refusals ${refused}; ${load()}`,
    );
  } finally {
    await world.close();
  }
}

for (const mode of MODES) await firstPass(mode);
if (KILLS > 0 && KILL_WORKLOADS > 0) await killedPass();
