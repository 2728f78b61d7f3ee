/**
 * Benchmark 3a, write economy: GitHub requests for one deployment lifecycle of one workload
 * (commit A in progress → success → commit B in progress → success), by endpoint, against the
 * theoretical minimum; then GitHub writes caused by 20 repeated identical Flux events.
 *   node dist/bench/write-economy.js        (needs `npx tsc -p .` first; about 15 s)
 * The 500-workload rollout under an 80 writes/min limit is bench/rollout.ts.
 */
import { fluxEvent } from '../test/harness/bridge-process.js';
import { startWorld } from '../test/harness/world.js';
import { PROGRESSING, READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { formatTally, githubEndpoint, load, putAnnotatedDeployment, say, settled, tally, writeInterval } from './common.js';

const REPEATS = 20;
const states = (d: { statuses: Array<{ state: string; addedBy: string }> }) => d.statuses.map((s) => `${s.state}/${s.addedBy}`);

async function main(): Promise<void> {
  const world = await startWorld();
  try {
    const a = sha('economy-a');
    const b = sha('economy-b');
    putAnnotatedDeployment(world, 'web', 'web', a);
    putKustomization(world, 'web', ['web'], PROGRESSING);
    const spacing = writeInterval();
    const bridge = await world.bridge({ ...spacing.env });
    const before = world.github.requests.length;
    const started = Date.now();
    const has = (commit: string, state: string) => () =>
      world.github.deployments('acme', 'web').some((d) => d.sha === commit && d.statuses.some((s) => s.state === state));
    const step = async (commit: string, cond: typeof READY, generation: number, state: string) => {
      putKustomization(world, 'web', ['web'], cond, generation);
      await bridge.post(
        fluxEvent('Kustomization', 'flux-system', 'web', { reason: state === 'success' ? 'ReconciliationSucceeded' : 'Progressing' }),
      );
      await bridge.waitFor(`${commit.slice(0, 7)} ${state}`, has(commit, state), 60_000);
    };
    await step(a, PROGRESSING, 1, 'in_progress');
    await step(a, READY, 1, 'success');
    putAnnotatedDeployment(world, 'web', 'web', b);
    await step(b, PROGRESSING, 2, 'in_progress');
    await step(b, READY, 2, 'success');
    await bridge.waitFor('A inactive', has(a, 'inactive'), 60_000);
    await settled(bridge);
    const lifecycleMs = Date.now() - started;
    const lifecycle = world.github.requests.slice(before);
    const writes = lifecycle.filter((r) => r.didWork && (r.method === 'POST' || r.method === 'DELETE'));
    const reads = lifecycle.filter((r) => r.method === 'GET');
    say(
      `write-economy: one lifecycle (A in_progress → success → B in_progress → success), ${(lifecycleMs / 1000).toFixed(1)} s wall, ${spacing.label}; ${load()}`,
    );
    say('  GitHub requests by endpoint (answer status):');
    say(formatTally(tally(lifecycle.map((r) => `${githubEndpoint(r.method, r.path)} → ${r.status ?? 'none'}`))));
    for (const d of world.github.deployments('acme', 'web')) say(`  deployment ${d.sha.slice(0, 7)}: ${states(d).join(', ')}`);
    // Minimum: a create per commit, the statuses the lifecycle shows (in_progress, success per commit), and
    // A's inactive: GitHub's free auto_inactive would also retire other clusters' live deployments of the
    // environment (it knows no clusters), so the bridge turns it off and supersedes A itself.
    const minimum = 2 + 2 * 2 + 1;
    say(
      `  writes: ${writes.length} (minimum ${minimum}: 2 creates + in_progress and success per commit + A's inactive, the bridge's own), ratio ${(writes.length / minimum).toFixed(2)}`,
    );
    say(`  reads: ${reads.length}; total requests ${lifecycle.length}; schema violations ${world.github.violations.length}`);

    const writesBefore = world.github.writes().length;
    const requestsBefore = world.github.requests.length;
    for (let i = 0; i < REPEATS; i++)
      await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }));
    await settled(bridge);
    say(
      `  ${REPEATS} repeated identical events: ${world.github.writes().length - writesBefore} GitHub writes, ${world.github.requests.length - requestsBefore} GitHub requests in all`,
    );
  } finally {
    await world.close();
  }
}

await main();
