/**
 * Benchmark 4, resync cost: Kubernetes, registry and GitHub requests and wall time of one resync
 * pass with nothing changed, at 100 and 1,000 opted-in workloads (10 per Kustomization). Workloads
 * annotate repository and commit, so no registry is started or needed (registry requests are 0 by
 * construction; the image host `registry.invalid` would fail if asked). DRY_RUN=true lets the first
 * pass "create" every deployment without 1 s-spaced GitHub writes (reads still reach the simulator).
 *   SIZES=100,1000 node dist/bench/resync-cost.js      (needs `npx tsc -p .` first)
 */
import { startWorld } from '../test/harness/world.js';
import { READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { formatTally, githubEndpoint, kubeEndpoint, putAnnotatedDeployment, say, settled, tally } from './common.js';

const SIZES = (process.env.SIZES ?? '100,1000').split(',').map(Number);
const PER_SOURCE = 10;
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 10);
const KUSTOMIZATION_LIST = /^\/apis\/kustomize\.toolkit\.fluxcd\.io\/v1\/(namespaces\/[^/]+\/)?kustomizations$/;

async function measure(workloads: number): Promise<void> {
  const world = await startWorld();
  try {
    for (let s = 0; s < workloads / PER_SOURCE; s++) {
      const names = Array.from({ length: PER_SOURCE }, (_, k) => `w-${s}-${k}`);
      for (const n of names) putAnnotatedDeployment(world, n, n, sha(n)); // one repository each: same-repo workloads with different commits would supersede each other
      putKustomization(world, `src-${s}`, names, READY);
    }
    const bridge = await world.bridge({ DRY_RUN: 'true', RESYNC_INTERVAL: `${INTERVAL_S}s`, LOG_LEVEL: 'info' });
    const t0 = Date.now();
    await settled(bridge);
    const firstMs = Date.now() - t0;
    const created = bridge.logs.filter((l) => l.msg === 'DRY_RUN: would create a GitHub deployment').length;
    // Wait for the next pass to start after everything settled, then for it to drain.
    const kubeFrom = world.kube.requests.length;
    const ghFrom = world.github.requests.length;
    const dryFrom = bridge.logs.filter((l) => l.dryRun === true).length;
    let passStart = 0;
    await bridge.waitFor('next resync pass', () => {
      const i = world.kube.requests.slice(kubeFrom).findIndex((r) => r.method === 'GET' && KUSTOMIZATION_LIST.test(r.path));
      if (i < 0) return false;
      passStart = Date.now();
      return true;
    }, (INTERVAL_S + 60) * 1000);
    const passKubeFrom = kubeFrom + world.kube.requests.slice(kubeFrom).findIndex((r) => r.method === 'GET' && KUSTOMIZATION_LIST.test(r.path));
    await new Promise((r) => setTimeout(r, 200)); // let the pass enqueue before checking the queue
    await settled(bridge);
    const wallMs = Date.now() - passStart;
    const kube = world.kube.requests.slice(passKubeFrom);
    const gh = world.github.requests.slice(ghFrom);
    const dryWrites = bridge.logs.filter((l) => l.dryRun === true).length - dryFrom;
    say(`resync-cost: ${workloads} workloads in ${workloads / PER_SOURCE} Kustomizations; first pass (creates, dry run) ${(firstMs / 1000).toFixed(1)} s, ${created} deployments`);
    say(`  one unchanged pass: wall ≈ ${(wallMs / 1000).toFixed(2)} s (from its first list request to queue drained, 200 ms settle included, polled), `
      + `Kubernetes ${kube.length} requests (${(kube.length / workloads).toFixed(2)} per workload), GitHub ${gh.length}, registry 0 (annotated), would-be writes ${dryWrites}`);
    say(formatTally(tally(kube.map((r) => kubeEndpoint(r.method, r.path)))));
    if (gh.length) say(formatTally(tally(gh.map((r) => githubEndpoint(r.method, r.path)))));
  } finally {
    await world.close();
  }
}

for (const n of SIZES) await measure(n);
