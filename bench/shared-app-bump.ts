/**
 * Benchmark 3d, many bridges on one GitHub App: BRIDGES bridges (one cluster each: its own Kubernetes API and
 * SQLite file) write as one identity, whose secondary limits (80 writes a minute, 500 an hour) the simulator
 * enforces once for all of them (their tokens map to one identity). WORKLOADS workloads, spread evenly over the
 * clusters, run commit A, live on GitHub, when every one rolls out commit B at once (a platform-wide base-image
 * bump). Each bridge has GITHUB_WRITE_BUDGET_SHARE=1/BRIDGES (SHARE overrides it: SHARE=1 is every bridge
 * believing it owns the whole budget). Time is compressed as in bench/base-image-bump.ts (SCALE, default 1/60:
 * a minute lasts 1 s, an hour 60 s). Measured: writes accepted until every workload shows B's `success`,
 * secondary-limit answers (goal 0), and the time until the last final status (each cluster's and all of them)
 * against the shared budget's minimum (the earliest 80/1m,500/1h lets 2 writes a workload through).
 *   node dist/bench/shared-app-bump.js               (needs `npx tsc -p .` first; ~3 min)
 *   BRIDGES=3 WORKLOADS=150 SHARE=1 node dist/bench/shared-app-bump.js
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fluxEvent, startBridge, type BridgeProcess } from '../test/harness/bridge-process.js';
import { startFakeKube, writeKubeconfig, type FakeKube } from '../test/harness/fake-kube.js';
import { deployment, kustomization } from '../test/harness/flux-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import { KUBE_TOKEN, WEBHOOK_KEY, startWorld, type World } from '../test/harness/world.js';
import { READY, sha } from '../test/e2e/scenario.js';
import { nextSlots, parseBudget } from '../src/forges/github/write-budget.js';
import { annotated, formatTally, load, say, settled, tally } from './common.js';

const BRIDGES = Number(process.env.BRIDGES ?? 5);
const WORKLOADS = Number(process.env.WORKLOADS ?? 500);
const SCALE = Number(process.env.SCALE ?? 1 / 60);
const ROLLOUT_S = Number(process.env.ROLLOUT_S ?? 60);
const SHARE = process.env.SHARE?.trim() || `1/${BRIDGES}`;
const PER_SOURCE = 10;
const BUDGET = parseBudget('80/1m,500/1h');
const INTERVAL_MS = 1_000;

interface Cluster {
  index: number;
  kube: FakeKube;
  kubeconfig: string;
  token: string;
  /** Its workloads' global indexes. */
  workloads: number[];
}

const repoOf = (i: number) => `s-${i}`;
const commitOf = (i: number, c: 'a' | 'b') => sha(`shared-${i}-${c}`);
const scaled = (ms: number) => ms * SCALE;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const isWrite = (q: { method: string; didWork: boolean }) => q.didWork && q.method !== 'GET';

/** Whether workload `i`'s deployment of `c` shows `state` last. */
const shows = (world: World, i: number, c: 'a' | 'b', state: string) =>
  world.github
    .deployments('acme', repoOf(i))
    .find((d) => d.sha === commitOf(i, c))
    ?.statuses.at(-1)?.state === state;

/** Every workload of the cluster at commit `c` (rolling or not), its Kustomizations Ready, their events posted. */
async function apply(cl: Cluster, bridge: BridgeProcess, c: 'a' | 'b', generation: number, rolling: boolean): Promise<void> {
  for (const i of cl.workloads)
    cl.kube.put(
      deployment({
        namespace: 'apps',
        name: `w-${i}`,
        annotations: annotated(repoOf(i), commitOf(i, c)),
        rollout: rolling ? 'progressing' : 'complete',
        containers: [{ name: 'app', image: `registry.invalid/acme/${repoOf(i)}:${commitOf(i, c).slice(0, 7)}` }],
      }),
    );
  for (let s = 0; s * PER_SOURCE < cl.workloads.length; s++) {
    const members = cl.workloads.slice(s * PER_SOURCE, (s + 1) * PER_SOURCE);
    cl.kube.put(
      kustomization({
        namespace: 'flux-system',
        name: `src-${s}`,
        generation,
        observedGeneration: generation,
        conditions: READY,
        inventory: members.map((i) => ({ namespace: 'apps', name: `w-${i}`, group: 'apps', kind: 'Deployment' })),
      }),
    );
    const r = await bridge.post(fluxEvent('Kustomization', 'flux-system', `src-${s}`, { reason: 'ReconciliationSucceeded' }));
    if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
  }
}

async function main(): Promise<void> {
  if ('problem' in BUDGET) throw new Error(BUDGET.problem);
  const tokens = Array.from({ length: BRIDGES }, (_, k) => `ghs_cluster${k}_token_000000000000000000000`);
  const identities = Object.fromEntries(tokens.map((tk) => [tk, 'one-app']));
  const world = await startWorld({
    github: { tokens, secondaryLimits: { scale: SCALE, identities }, requestsPerHour: Math.round(5000 / SCALE) },
  });
  const clusters: Cluster[] = [];
  const started: BridgeProcess[] = [];
  try {
    for (let k = 0; k < BRIDGES; k++) {
      const kube = k === 0 ? world.kube : await startFakeKube({ token: KUBE_TOKEN });
      mkdirSync(join(world.dir, `c${k}`));
      const workloads = Array.from({ length: WORKLOADS }, (_, i) => i).filter((i) => i % BRIDGES === k);
      clusters.push({
        index: k,
        kube,
        kubeconfig: writeKubeconfig(join(world.dir, `c${k}`), kube.url, KUBE_TOKEN),
        token: tokens[k]!,
        workloads,
      });
    }
    const start = async (cl: Cluster, extra: Record<string, string>) => {
      const bridge = await startBridge({
        env: world.env({
          GITHUB_TOKEN: cl.token,
          KUBECONFIG: cl.kubeconfig,
          DATABASE_PATH: join(world.dir, `bridge-${cl.index}.db`),
          CLUSTER_NAME: `cluster-${cl.index}`,
          ENVIRONMENT: 'production',
          ...extra,
        }),
        webhookKey: WEBHOOK_KEY,
      });
      started.push(bridge);
      return bridge;
    };

    // Commit A goes live everywhere with the limits off and no budget: the starting point, not measured.
    world.github.enforceSecondaryLimits(false);
    const seeding = await Promise.all(clusters.map((cl) => start(cl, { GITHUB_WRITE_BUDGET: '1000000/1m', GITHUB_WRITE_INTERVAL: '0s' })));
    await Promise.all(seeding.map((b) => settled(b)));
    for (const cl of clusters) await apply(cl, seeding[cl.index]!, 'a', 1, false);
    const all = Array.from({ length: WORKLOADS }, (_, i) => i);
    await seeding[0]!.waitFor('A live everywhere', () => all.every((i) => shows(world, i, 'a', 'success')), 600_000);
    await Promise.all(seeding.map((b) => settled(b)));
    await Promise.all(seeding.map((b) => b.kill('SIGTERM')));

    world.github.enforceSecondaryLimits(true);
    const budgetEnv = BUDGET.map((w) => `${w.count}/${scaled(w.ms).toFixed(3)}ms`).join(',');
    const env = {
      GITHUB_WRITE_BUDGET: budgetEnv,
      GITHUB_WRITE_BUDGET_SHARE: SHARE,
      GITHUB_WRITE_INTERVAL: `${scaled(INTERVAL_MS).toFixed(3)}ms`,
    };
    const bridges = await Promise.all(clusters.map((cl) => start(cl, env)));
    await Promise.all(bridges.map((b) => settled(b)));
    const from = world.github.requests.length;
    say(
      `shared-app-bump: ${BRIDGES} bridges on one App, ${WORKLOADS} workloads (${clusters.map((c) => c.workloads.length).join('/')}) roll out B at once; ` +
        `GITHUB_WRITE_BUDGET 80/1m,500/1h, GITHUB_WRITE_BUDGET_SHARE=${SHARE}, 1 s floor, scaled ×${SCALE.toFixed(4)}; rollout ${ROLLOUT_S} s scaled; ${load()}`,
    );
    const t0 = Date.now();
    await Promise.all(clusters.map((cl) => apply(cl, bridges[cl.index]!, 'b', 2, true)));
    await new Promise((r) => setTimeout(r, scaled(ROLLOUT_S * 1000)));
    for (const cl of clusters) for (const i of cl.workloads) finishRollout(cl.kube, 'apps', `w-${i}`);

    const finals = new Map<number, number>();
    let lastReport = Date.now();
    await bridges[0]!.waitFor(
      'every workload shows B success',
      () => {
        for (const cl of clusters)
          if (!finals.has(cl.index) && cl.workloads.every((i) => shows(world, i, 'b', 'success'))) finals.set(cl.index, Date.now() - t0);
        if (Date.now() - lastReport > 20_000) {
          lastReport = Date.now();
          const n = all.filter((i) => shows(world, i, 'b', 'success')).length;
          say(
            `  … ${secs(Date.now() - t0)}: ${n}/${WORKLOADS} success, ${world.github.requests.slice(from).filter(isWrite).length} writes; ${load()}`,
          );
        }
        return finals.size === BRIDGES;
      },
      3_600_000,
    );
    const took = Math.max(...finals.values());
    const requests = world.github.requests.slice(from);
    const writes = requests.filter(isWrite);
    const kind = (q: (typeof requests)[number]) =>
      q.path.endsWith('/statuses') ? `status ${(q.body as { state: string }).state}` : 'create deployment';
    // The identity's windows, with the bridges' floors together (each 1 write a second) as one more window.
    const shared = [{ count: BRIDGES, ms: scaled(INTERVAL_MS) }, ...BUDGET.map((w) => ({ count: w.count, ms: scaled(w.ms) }))];
    const minMs = nextSlots(shared, [], 0, 2 * WORKLOADS).at(-1) ?? 0;
    say(
      `  every workload's final status after ${secs(took)} (${(took / SCALE / 60_000).toFixed(1)} min unscaled); the shared budget's minimum ${secs(minMs)}; measured ÷ minimum = ${(took / minMs).toFixed(2)}`,
    );
    say(
      `  each cluster's last final status: ${[...finals]
        .sort((a, b) => a[0] - b[0])
        .map(([k, ms]) => `cluster-${k} ${secs(ms)}`)
        .join(', ')}`,
    );
    say(
      `  writes accepted until then: ${writes.length} (${(writes.length / WORKLOADS).toFixed(2)} a workload); by cluster: ${clusters.map((cl) => writes.filter((q) => q.token === cl.token).length).join('/')}`,
    );
    say(formatTally(tally(writes.map(kind))));
    say(
      `  secondary-limit answers: ${world.github.secondaryRefusals()} (goal 0); 403/429 answers: ${requests.filter((q) => q.status === 403 || q.status === 429).length}; GitHub reads ${requests.filter((q) => q.method === 'GET').length}; schema violations ${world.github.violations.length}; ${load()}`,
    );
  } finally {
    await Promise.all(started.map((b) => b.kill('SIGKILL')));
    await Promise.all(clusters.slice(1).map((cl) => cl.kube.close()));
    await world.close();
  }
}

await main();
