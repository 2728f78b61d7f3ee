/**
 * Benchmark 3b, write economy on Forgejo: the twin of bench/write-economy.ts with commit statuses.
 * One lifecycle of one workload (commit A pending → success → commit B pending → success), then the
 * source deleted so B gets its one final `gone` status; Forgejo requests by endpoint against the
 * theoretical minimum, the writes caused by 20 repeated identical Flux events, and the same run once
 * more with a restart (SIGTERM, started again on the same DATABASE_PATH) after B's `pending`.
 *   node dist/bench/forgejo-economy.js        (needs `npx tsc -p .` first; about 15 s)
 */
import { fluxEvent } from '../test/harness/bridge-process.js';
import type { ForgejoSimulator, RecordedRequest, StoredStatus } from '../test/harness/forgejo-sim.js';
import { startWorld } from '../test/harness/world.js';
import { PROGRESSING, READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { forgejoEndpoint, formatTally, load, putAnnotatedDeployment, repeatEvents, say, settled, tally } from './common.js';

const REPEATS = 20;
/** Short, so the `gone` status follows the source's deletion within the run. */
const CLEANUP_GRACE = '1s';
const WAIT_MS = 60_000;
const GONE = 'Deployment gone';
/** Two statuses per commit lifecycle (pending, success) + one `gone` at cleanup; A's status stays as history. */
const MINIMUM_WRITES = 2 * 2 + 1;

interface Outcome {
  /** Forgejo requests of the lifecycle and the cleanup (the repeated events' window left out). */
  requests: RecordedRequest[];
  a: StoredStatus[];
  b: StoredStatus[];
  repeated: { writes: number; requests: number };
  violations: number;
  githubRequests: number;
  lifecycleMs: number;
}

const isStatusRead = (r: RecordedRequest) => r.method === 'GET' && r.path.includes('/statuses/');
const isCredentialCheck = (r: RecordedRequest) => r.method === 'GET' && r.path === '/user';
const isWrite = (r: RecordedRequest) => r.didWork && r.method === 'POST';
const count = (list: RecordedRequest[], f: (r: RecordedRequest) => boolean) => list.filter(f).length;
const shown = (s: StoredStatus) => (s.description.startsWith(GONE) ? `${s.state} "${s.description}"` : s.state);

/** One world, one bridge (restarted after B's `pending` when asked): the lifecycle, 20 repeats, the cleanup. */
async function run(restart: boolean): Promise<Outcome> {
  const a = sha('forgejo-economy-a');
  const b = sha('forgejo-economy-b');
  const world = await startWorld({ forgejo: { repos: ['acme/web'], commits: { 'acme/web': [a, b] } } });
  try {
    const forgejo: ForgejoSimulator | undefined = world.forgejo;
    if (forgejo === undefined) throw new Error('the world has no Forgejo simulator');
    const statuses = (commit: string) => forgejo.statuses('acme', 'web', commit);
    const has =
      (commit: string, state: string, gone = false) =>
      () =>
        statuses(commit).some((s) => s.state === state && s.description.startsWith(GONE) === gone);
    putAnnotatedDeployment(world, 'web', 'web', a, forgejo.url);
    putKustomization(world, 'web', ['web'], PROGRESSING);
    let bridge = await world.bridge({ CLEANUP_GRACE });
    const started = Date.now();
    const step = async (commit: string, cond: typeof READY, generation: number, state: string) => {
      putKustomization(world, 'web', ['web'], cond, generation);
      const reason = state === 'success' ? 'ReconciliationSucceeded' : 'Progressing';
      await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason }));
      await bridge.waitFor(`${commit.slice(0, 7)} ${state}`, has(commit, state), WAIT_MS);
      await settled(bridge); // nothing of this step still queued when the next changes the cluster
    };
    await step(a, PROGRESSING, 1, 'pending');
    await step(a, READY, 1, 'success');
    putAnnotatedDeployment(world, 'web', 'web', b, forgejo.url);
    await step(b, PROGRESSING, 2, 'pending');
    if (restart) {
      await bridge.kill('SIGTERM');
      bridge = await world.bridge({ CLEANUP_GRACE }); // the world's DATABASE_PATH: the same store
    }
    await step(b, READY, 2, 'success');
    const lifecycleMs = Date.now() - started;

    const { from: repeatsFrom, to: repeatsTo, ...repeated } = await repeatEvents(bridge, forgejo, 'web', REPEATS);

    // The source is deleted (a closed pull request's preview): after CLEANUP_GRACE, B's context says gone.
    world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web');
    world.kube.delete('apps/v1', 'Deployment', 'apps', 'web');
    await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }));
    await bridge.waitFor(`${b.slice(0, 7)} gone`, has(b, 'success', true), WAIT_MS);
    await settled(bridge);
    return {
      requests: [...forgejo.requests.slice(0, repeatsFrom), ...forgejo.requests.slice(repeatsTo)],
      a: statuses(a),
      b: statuses(b),
      repeated,
      violations: forgejo.violations.length,
      githubRequests: world.github.requests.length,
      lifecycleMs,
    };
  } finally {
    await world.close();
  }
}

function report(o: Outcome): void {
  say(`  commit A: ${o.a.map(shown).join(', ')}`);
  say(`  commit B: ${o.b.map(shown).join(', ')}`);
  const writes = count(o.requests, isWrite);
  say(
    `  writes: ${writes} (minimum ${MINIMUM_WRITES}: pending and success per commit + 1 gone at cleanup; A's status stays as history: 0), ratio ${(writes / MINIMUM_WRITES).toFixed(2)}`,
  );
  say(
    `  reads: ${count(o.requests, isStatusRead)} status lists (one per context new to the bridge's store: A's and B's at their first status) + ${count(o.requests, isCredentialCheck)} GET /user (the token check at each start); total Forgejo requests ${o.requests.length}; schema violations ${o.violations}; GitHub requests ${o.githubRequests} (its token check: the world has both forges)`,
  );
}

async function main(): Promise<void> {
  const plain = await run(false);
  say(
    `forgejo-economy: one lifecycle (A pending → success → B pending → success) ${(plain.lifecycleMs / 1000).toFixed(1)} s wall, then the source deleted (CLEANUP_GRACE=${CLEANUP_GRACE}) → B gone; ${load()}`,
  );
  say('  Forgejo requests by endpoint (answer status), lifecycle and cleanup:');
  say(formatTally(tally(plain.requests.map((r) => `${forgejoEndpoint(r.method, r.path, r.query)} → ${r.status ?? 'none'}`))));
  report(plain);
  say(
    `  ${REPEATS} repeated identical events: ${plain.repeated.writes} Forgejo writes, ${plain.repeated.requests} Forgejo requests in all`,
  );

  const restarted = await run(true);
  say(`forgejo-economy with a restart (SIGTERM after B pending, started again on the same DATABASE_PATH); ${load()}`);
  report(restarted);
  const extra = (f: (r: RecordedRequest) => boolean) => count(restarted.requests, f) - count(plain.requests, f);
  say(
    `  the restart cost ${extra(isStatusRead)} extra status reads (nothing was pending), ${extra(isCredentialCheck)} extra GET /user, ${extra(isWrite)} extra writes`,
  );
}

await main();
