/**
 * Benchmark: a fleet from one hub (docs/fleet.md). One bridge in the hub reports SPOKES spokes (fake API servers in
 * this process, kubeconfigs in CLUSTER_KUBECONFIG_DIR) with WORKLOADS opted-in Deployments in all (NAMESPACES
 * namespaces per spoke, one remote Kustomization per namespace), beside a local cluster of one spoke's shape in the
 * hub. DRY_RUN=true, so the first pass is not 20,000 GitHub creates (reads still reach the simulator). Measured:
 * - RSS idle (the bridge started on an empty hub) and at WORKLOADS tracked (after the first pass);
 * - time to report the first pass (bridge start → queue drained, every deployment decided);
 * - Kubernetes requests of one idle resync pass per spoke (and per namespace, beside the local cluster's);
 * - connections and watches open on the spokes once idle;
 * - final-status latency of a spoke's rollout: ROLLOUTS rollouts in turn on random spokes, each shown in progress
 *   (Flux Ready in the hub), then its Deployment's status marked done in the spoke, with no Flux event: from that
 *   change to the bridge's (dry-run) success status.
 *   WORKLOADS=2000,20000 SPOKES=50 node dist/bench/fleet.js           (needs `npx tsc -p .` first; Linux only)
 */
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { deployment } from '../test/harness/flux-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import { startWorld, type World } from '../test/harness/world.js';
import { sha } from '../test/e2e/scenario.js';
import { annotated, formatTally, kubeEndpoint, load, plentifulBudget, rssMiB, say, settled, tally } from './common.js';
import { clusterName, putSource, startFleet, type Fleet, type FleetSource } from './fleet-world.js';
import { median, percentile } from './stats.js';

const SIZES = (process.env.WORKLOADS ?? '2000,20000').split(',').map(Number);
const SPOKES = Number(process.env.SPOKES ?? 50);
const NAMESPACES = Number(process.env.NAMESPACES ?? 4);
const ROLLOUTS = Number(process.env.ROLLOUTS ?? 30);
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 60);
const KUSTOMIZATION_LIST = /^\/apis\/kustomize\.toolkit\.fluxcd\.io\/v1\/(namespaces\/[^/]+\/)?kustomizations$/;
const FLUX_PATH = /^\/apis\/(kustomize|helm)\.toolkit\.fluxcd\.io\//;
/** kubeEndpoint, with a Namespace's GET (`/api/v1/namespaces/<name>`, cluster-scoped) named as such. */
const endpoint = (method: string, path: string) =>
  /^\/api\/v1\/namespaces\/[^/]+$/.test(path) ? 'get namespaces' : kubeEndpoint(method, path);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (n: number) => `${n.toFixed(1)} MiB`;
const pcts = (ms: number[]) =>
  `p50 ${median(ms).toFixed(0)} ms, p90 ${percentile(ms, 90).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`;

async function waitUntil(cond: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function bridgeEnv(fleet: Fleet | undefined, db: string, world: World): Record<string, string> {
  return {
    ...(fleet ? { CLUSTER_KUBECONFIG_DIR: fleet.kubeconfigDir } : {}),
    DATABASE_PATH: `${world.dir}/${db}.db`,
    DRY_RUN: 'true',
    RESYNC_INTERVAL: `${INTERVAL_S}s`,
    GITHUB_WRITE_INTERVAL: '0s',
    ...plentifulBudget(),
    WEBHOOK_RATE_PER_MINUTE: '100000',
    LOG_LEVEL: 'info',
  };
}

/** When the bridge (dry run) last decided a `state` status for `repo`, at or after `since`. */
const statusAt = (bridge: BridgeProcess, repo: string, state: string, since: number) =>
  bridge.logs.find(
    (l) =>
      l.msg === 'DRY_RUN: would send a deployment status' &&
      l.repo === `acme/${repo}` &&
      (l.body as { state?: string }).state === state &&
      Number(l.time) >= since,
  )?.time as number | undefined;

/** One idle resync pass: from its first Kustomization list to the queue drained and 2 s without a spoke request. */
async function idlePass(world: World, fleet: Fleet, bridge: BridgeProcess): Promise<{ spoke: number[]; local: number; tallies: string }> {
  const hubFrom = world.kube.requests.length;
  // Counted from before the pass: an idle bridge asks the spokes nothing in between, and a small pass is over
  // before a poll would see its first request.
  const spokeFrom = fleet.spokes.map((s) => s.requests.length);
  await bridge.waitFor(
    'next resync pass',
    () => world.kube.requests.slice(hubFrom).some((r) => KUSTOMIZATION_LIST.test(r.path)),
    (INTERVAL_S + 60) * 1000,
  );
  const passFrom = hubFrom + world.kube.requests.slice(hubFrom).findIndex((r) => KUSTOMIZATION_LIST.test(r.path));
  await sleep(200);
  await settled(bridge);
  for (let quiet = 0; quiet < 4;) {
    const before = fleet.spokes.reduce((n, s) => n + s.requests.length, 0);
    await sleep(500);
    quiet = fleet.spokes.reduce((n, s) => n + s.requests.length, 0) === before ? quiet + 1 : 0;
  }
  const spoke = fleet.spokes.map((s, i) => s.requests.length - spokeFrom[i]!);
  const local = world.kube.requests.slice(passFrom).filter((r) => !FLUX_PATH.test(r.path));
  const one = fleet.spokes[0]!.requests.slice(spokeFrom[0]);
  return {
    spoke,
    local: local.length,
    tallies:
      `  ${clusterName(0)}'s requests:\n${formatTally(tally(one.map((r) => endpoint(r.method, r.path))))}\n` +
      `  the local cluster's (hub, Flux objects left out):\n${formatTally(tally(local.map((r) => endpoint(r.method, r.path))))}`,
  };
}

/** ROLLOUTS rollouts in turn, each on a random spoke's random source: change → success, in ms. */
async function rollouts(
  world: World,
  fleet: Fleet,
  bridge: BridgeProcess,
): Promise<{ ms: number[]; peakWatches: number; watched: number; afterPass: number[] }> {
  const remote = fleet.sources.filter((s): s is FleetSource & { spoke: number } => s.spoke !== undefined);
  const ms: number[] = [];
  // When each resync pass started (the hub's Kustomization list), seen by polling: to tell which rollouts met one.
  const passes: number[] = [];
  let seen = world.kube.requests.length;
  const poll = setInterval(() => {
    const fresh = world.kube.requests.slice(seen);
    seen += fresh.length;
    if (fresh.some((r) => KUSTOMIZATION_LIST.test(r.path))) passes.push(Date.now());
  }, 100);
  /** Per rollout: ms from the latest resync pass's start to its status change (Infinity: none before its success). */
  const afterPass: number[] = [];
  let peakWatches = 0;
  let watched = 0;
  for (let i = 0; i < ROLLOUTS; i++) {
    const src = remote[Math.floor(Math.random() * remote.length)]!;
    const spoke = fleet.spokes[src.spoke]!;
    const name = src.workloads[0]!;
    const commit = sha(`${name}-rollout-${i}`);
    spoke.put(
      deployment({
        namespace: src.namespace,
        name,
        annotations: annotated(name, commit),
        rollout: 'progressing',
        containers: [{ name: 'app', image: `registry.invalid/acme/${name}:${i + 2}` }],
      }),
    );
    const r = await bridge.post(fluxEvent('Kustomization', 'flux-system', src.name, { reason: 'ReconciliationSucceeded' }));
    if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
    const sent = bridge.logs.length;
    await waitUntil(
      () => bridge.logs.slice(sent).some((l) => l.repo === `acme/${name}` && l.msg === 'DRY_RUN: would create a GitHub deployment'),
      `${name} in progress`,
    );
    // A watch on the spoke while it rolls out, if the bridge opens one (the final status then needs no resync).
    await waitUntil(() => spoke.openWatches > 0, `a watch on ${clusterName(src.spoke)}`, 3000).then(
      () => watched++,
      () => undefined,
    );
    peakWatches = Math.max(
      peakWatches,
      fleet.spokes.reduce((n, s) => n + s.openWatches, 0),
    );
    const changed = Date.now();
    finishRollout(spoke, src.namespace, name);
    await waitUntil(() => statusAt(bridge, name, 'success', changed) !== undefined, `${name} success`, (INTERVAL_S + 60) * 1000);
    const done = statusAt(bridge, name, 'success', changed)!;
    ms.push(done - changed);
    const last = passes.filter((p) => p <= done).at(-1);
    afterPass.push(last === undefined ? Infinity : changed - last);
  }
  clearInterval(poll);
  return { ms, peakWatches, watched, afterPass };
}

async function measure(workloads: number): Promise<void> {
  const world = await startWorld({ github: { requestsPerHour: 1_000_000 } });
  try {
    const fleet = await startFleet(world, SPOKES, workloads, NAMESPACES);
    const idleBridge = await world.bridge(bridgeEnv(fleet, 'idle', world));
    await sleep(5000);
    const idleRss = rssMiB(idleBridge.child.pid!);
    await idleBridge.kill('SIGTERM');
    for (const s of fleet.sources) putSource(world.kube, s);
    const tracked = fleet.sources.reduce((n, s) => n + s.workloads.length, 0);
    const t0 = Date.now();
    const bridge = await world.bridge(bridgeEnv(fleet, 'fleet', world));
    await settled(bridge, 1_800_000);
    const firstS = (Date.now() - t0) / 1000;
    const created = bridge.logs.filter((l) => l.msg === 'DRY_RUN: would create a GitHub deployment').length;
    await sleep(2000);
    const trackedRss = rssMiB(bridge.child.pid!);
    say(
      `fleet: ${SPOKES} spokes × ${NAMESPACES} namespaces, ${tracked} workloads: ${tracked / (SPOKES + 1)} per cluster in the spokes and the hub's local one; ${load()}`,
    );
    say(`  first pass: ${firstS.toFixed(1)} s from the bridge's start to the queue drained, ${created} deployments decided (dry run)`);
    say(`  RSS: idle ${mib(idleRss)} (empty hub, ${SPOKES} kubeconfigs), ${mib(trackedRss)} with ${created} tracked`);
    const pass = await idlePass(world, fleet, bridge);
    say(
      `  one idle resync pass, Kubernetes requests per spoke: min ${Math.min(...pass.spoke)}, median ${median(pass.spoke)}, max ${Math.max(...pass.spoke)} ` +
        `(${(median(pass.spoke) / NAMESPACES).toFixed(2)} per namespace); the local cluster: ${pass.local} (${(pass.local / NAMESPACES).toFixed(2)} per namespace)`,
    );
    say(pass.tallies);
    const conns = fleet.spokes.map((s) => s.openConnections);
    say(
      `  idle: watches open on spokes ${fleet.spokes.reduce((n, s) => n + s.openWatches, 0)}, connections open to spokes ${conns.reduce((a, b) => a + b, 0)} ` +
        `(per spoke max ${Math.max(...conns)}); after the pass, RSS ${mib(rssMiB(bridge.child.pid!))}`,
    );
    const r = await rollouts(world, fleet, bridge);
    if (r.ms.length > 0)
      say(
        `  ${ROLLOUTS} spoke rollouts, status change in the spoke → success (no Flux event): ${pcts(r.ms)}; a watch open on the spoke while it rolled out: ${r.watched}/${ROLLOUTS}, most watches open on spokes: ${r.peakWatches}`,
      );
    // Where the slow ones fell: their status change's time after the latest resync pass's start (negative: the pass started after it).
    const slow = r.ms.flatMap((ms, i) => (ms > 2000 ? [`${(ms / 1000).toFixed(1)} s at ${(r.afterPass[i]! / 1000).toFixed(1)} s`] : []));
    say(
      `  over 2 s: ${slow.length} of ${r.ms.length}, each with its change's time after the latest resync pass started: ${slow.join(', ')}`,
    );
    await sleep(3000);
    say(
      `  after the rollouts: watches open on spokes ${fleet.spokes.reduce((n, s) => n + s.openWatches, 0)}, RSS ${mib(rssMiB(bridge.child.pid!))}`,
    );
    await Promise.all(fleet.spokes.map((s) => s.close()));
  } finally {
    await world.close();
  }
}

for (const n of SIZES) await measure(n);
