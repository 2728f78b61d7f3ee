/**
 * Benchmark: a first pass on Forgejo over WORKLOADS new workloads (default 2,000: WORKLOADS / 4 repositories, one
 * commit each, 4 environments each), real status writes, the simulator answering after LATENCY_MS (default 20).
 * Two layouts: `together` (20 workloads per Kustomization, a repository's 4 environments in one Kustomization, as
 * bench/first-pass.ts) and `spread` (one Kustomization per environment and 5 repositories: a commit's 4 contexts
 * come from 4 Kustomizations, as 4 clusters of a fleet would). Before (BEFORE_MAIN: `dist/src/main.js` of a build
 * without the shared reads) and after (this build): Forgejo reads of commit statuses (GET …/statuses/{sha}), status
 * writes, duplicates (a context with more than one status), the time until every context shows its status and the
 * queue drained. Then KILL_WORKLOADS with the bridge SIGKILLed KILLS times during the pass: duplicates, contexts missing.
 *   npx tsc -p . && node dist/bench/forgejo-first-pass.js
 *   BEFORE_MAIN=/tmp/gdb-before/dist/src/main.js node dist/bench/forgejo-first-pass.js   # with "before"
 */
import { PRODUCTION_NODE_FLAGS } from '../test/harness/node-flags.js';
import { startBridge, type BridgeProcess } from '../test/harness/bridge-process.js';
import { deployment, kustomization } from '../test/harness/flux-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import { WEBHOOK_KEY, startWorld, type World } from '../test/harness/world.js';
import { READY, sha } from '../test/e2e/scenario.js';
import { annotated, load, say, settled } from './common.js';

const WORKLOADS = Number(process.env.WORKLOADS ?? 2_000);
const KILL_WORKLOADS = Number(process.env.KILL_WORKLOADS ?? 1_000);
const KILLS = Number(process.env.KILLS ?? 3);
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 20);
const LAYOUTS = (process.env.LAYOUTS ?? 'together,spread').split(',').filter(Boolean) as Layout[];
const BEFORE_MAIN = process.env.BEFORE_MAIN;
const ENVS = 4;
const PER_SOURCE = 20;
const NAMESPACES = 10;
const WAIT_MS = 3_600_000;

type Layout = 'together' | 'spread';

/** Workload i: repository i / 4, environment i % 4; Kustomizations of PER_SOURCE workloads, grouped by layout. */
function populate(world: World, n: number, layout: Layout): void {
  const sources = new Map<string, Array<{ ns: string; name: string }>>();
  for (let i = 0; i < n; i++) {
    const ns = `team-${Math.floor(i / PER_SOURCE) % NAMESPACES}`;
    const name = `w-${i}`;
    const repo = `r-${Math.floor(i / ENVS)}`;
    world.kube.put(
      deployment({
        namespace: ns,
        name,
        annotations: {
          ...annotated(repo, sha(repo), world.forgejo!.url),
          'github-deployment-bridge.io/environment': `env-${i % ENVS}`,
        },
        containers: [{ name: 'app', image: `registry.invalid/acme/${repo}:1` }],
      }),
    );
    finishRollout(world.kube, ns, name);
    const group = Math.floor(i / (PER_SOURCE * (layout === 'spread' ? ENVS : 1)));
    const source = layout === 'spread' ? `src-${group}-env-${i % ENVS}` : `src-${group}`;
    sources.set(source, [...(sources.get(source) ?? []), { ns, name }]);
  }
  for (const [name, members] of sources)
    world.kube.put(
      kustomization({
        namespace: 'flux-system',
        name,
        conditions: READY,
        inventory: members.map((m) => ({ namespace: m.ns, name: m.name, group: 'apps', kind: 'Deployment' })),
      }),
    );
}

/** Bridges started here (the world kills only its own): killed when their world closes. */
const started: BridgeProcess[] = [];

async function bridgeOf(world: World, main: string | undefined): Promise<BridgeProcess> {
  const command = main === undefined ? {} : { command: { argv: [process.execPath, ...PRODUCTION_NODE_FLAGS, main], cwd: process.cwd() } };
  const bridge = await startBridge({ env: world.env({ LOG_LEVEL: 'info' }), webhookKey: WEBHOOK_KEY, ...command });
  started.push(bridge);
  return bridge;
}

async function closeWorld(world: World): Promise<void> {
  await Promise.all(started.splice(0).map((b) => b.kill('SIGKILL')));
  await world.close();
}

interface Figures {
  reads: number;
  writes: number;
  contexts: number;
  duplicates: number;
  violations: number;
}

function figures(world: World, n: number): Figures {
  const forgejo = world.forgejo!;
  const reads = forgejo.requests.filter((r) => r.method === 'GET' && /^\/repos\/[^/]+\/[^/]+\/statuses\//.test(r.path)).length;
  let contexts = 0;
  let duplicates = 0;
  for (let r = 0; r < n / ENVS; r++) {
    const perContext = new Map<string, number>();
    for (const s of forgejo.statuses('acme', `r-${r}`, sha(`r-${r}`))) perContext.set(s.context, (perContext.get(s.context) ?? 0) + 1);
    contexts += perContext.size;
    for (const k of perContext.values()) duplicates += k - 1;
  }
  return { reads, writes: forgejo.writes().length, contexts, duplicates, violations: forgejo.violations.length };
}

async function firstPass(layout: Layout, mode: 'before' | 'after'): Promise<void> {
  const world = await startWorld({ forgejo: { latencyMs: LATENCY_MS } });
  try {
    populate(world, WORKLOADS, layout);
    const t0 = Date.now();
    const bridge = await bridgeOf(world, mode === 'before' ? BEFORE_MAIN : undefined);
    await bridge.waitFor('every context written', () => world.forgejo!.writes().length >= WORKLOADS, WAIT_MS);
    await settled(bridge, WAIT_MS);
    const ms = Date.now() - t0;
    const f = figures(world, WORKLOADS);
    say(
      `forgejo-first-pass ${layout} ${mode}: ${WORKLOADS} workloads (${WORKLOADS / ENVS} commits × ${ENVS} environments), ` +
        `every context shown after ${(ms / 1000).toFixed(1)} s; status reads ${f.reads} (${(f.reads / WORKLOADS).toFixed(3)} per context), ` +
        `writes ${f.writes}, contexts ${f.contexts}, duplicates ${f.duplicates}, swagger violations ${f.violations}; ${load()}`,
    );
  } finally {
    await closeWorld(world);
  }
}

/** The after-build with KILLS SIGKILLs during the pass, restarted over its database each time. */
async function killedPass(layout: Layout): Promise<void> {
  const world = await startWorld({ forgejo: { latencyMs: LATENCY_MS } });
  try {
    populate(world, KILL_WORKLOADS, layout);
    let bridge = await bridgeOf(world, undefined);
    const t0 = Date.now();
    for (let k = 1; k <= KILLS; k++) {
      const at = Math.round((KILL_WORKLOADS * k) / (KILLS + 1));
      await bridge.waitFor(`${at} writes`, () => world.forgejo!.writes().length >= at, WAIT_MS);
      await bridge.kill('SIGKILL');
      bridge = await bridgeOf(world, undefined);
    }
    await bridge.waitFor('every context written', () => figures(world, KILL_WORKLOADS).contexts >= KILL_WORKLOADS, WAIT_MS);
    await settled(bridge, WAIT_MS);
    const f = figures(world, KILL_WORKLOADS);
    say(
      `forgejo-first-pass ${layout} with ${KILLS} SIGKILLs: ${KILL_WORKLOADS} workloads, ${((Date.now() - t0) / 1000).toFixed(1)} s; ` +
        `contexts ${f.contexts} of ${KILL_WORKLOADS}, duplicates ${f.duplicates}, status reads ${f.reads}, writes ${f.writes}, ` +
        `swagger violations ${f.violations}; ${load()}`,
    );
  } finally {
    await closeWorld(world);
  }
}

for (const layout of LAYOUTS) {
  if (BEFORE_MAIN !== undefined) await firstPass(layout, 'before');
  await firstPass(layout, 'after');
}
if (KILLS > 0 && KILL_WORKLOADS > 0) await killedPass(LAYOUTS[0] ?? 'together');
