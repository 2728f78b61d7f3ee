/**
 * Benchmark 4, resync cost: Kubernetes, registry and GitHub requests and wall time of one resync
 * pass with nothing changed, at 100, 1,000 and 5,000 opted-in workloads (10 per Kustomization,
 * spread over NAMESPACES namespaces, 10 by default). Workloads
 * annotate repository and commit, so no registry is started or needed (registry requests are 0 by
 * construction; the image host `registry.invalid` would fail if asked). DRY_RUN=true lets the first
 * pass "create" every deployment without 1 s-spaced GitHub writes (reads still reach the simulator).
 *   SIZES=100,1000,5000 node dist/bench/resync-cost.js      (needs `npx tsc -p .` first)
 */
import { startWorld } from '../test/harness/world.js';
import { READY, sha } from '../test/e2e/scenario.js';
import { deployment, kustomization } from '../test/harness/flux-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import { annotated, formatTally, githubEndpoint, kubeEndpoint, say, settled, tally } from './common.js';

const SIZES = (process.env.SIZES ?? '100,1000,5000').split(',').map(Number);
const NAMESPACES = Number(process.env.NAMESPACES ?? 10);
const PER_SOURCE = 10;
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 10);
const KUSTOMIZATION_LIST = /^\/apis\/kustomize\.toolkit\.fluxcd\.io\/v1\/(namespaces\/[^/]+\/)?kustomizations$/;

async function measure(workloads: number): Promise<void> {
  // The first pass makes one find-before-create read per new deployment: 5,000 workloads would spend a
  // token's whole hourly budget (5,000), so the simulator grants an Enterprise Cloud App's 15,000.
  const world = await startWorld({ github: { requestsPerHour: 15_000 } });
  try {
    for (let s = 0; s < workloads / PER_SOURCE; s++) {
      const ns = `team-${s % NAMESPACES}`;
      const names = Array.from({ length: PER_SOURCE }, (_, k) => `w-${s}-${k}`);
      for (const n of names) {
        // One repository each: same-repo workloads with different commits would supersede each other.
        world.kube.put(
          deployment({
            namespace: ns,
            name: n,
            annotations: annotated(n, sha(n)),
            containers: [{ name: 'app', image: `registry.invalid/acme/${n}:1` }],
          }),
        );
        finishRollout(world.kube, ns, n);
      }
      world.kube.put(
        kustomization({
          namespace: 'flux-system',
          name: `src-${s}`,
          conditions: READY,
          inventory: names.map((n) => ({ namespace: ns, name: n, group: 'apps', kind: 'Deployment' })),
        }),
      );
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
    await bridge.waitFor(
      'next resync pass',
      () => {
        const i = world.kube.requests.slice(kubeFrom).findIndex((r) => r.method === 'GET' && KUSTOMIZATION_LIST.test(r.path));
        if (i < 0) return false;
        passStart = Date.now();
        return true;
      },
      (INTERVAL_S + 60) * 1000,
    );
    const passKubeFrom =
      kubeFrom + world.kube.requests.slice(kubeFrom).findIndex((r) => r.method === 'GET' && KUSTOMIZATION_LIST.test(r.path));
    await new Promise((r) => setTimeout(r, 200)); // let the pass enqueue before checking the queue
    await settled(bridge);
    const wallMs = Date.now() - passStart;
    const kube = world.kube.requests.slice(passKubeFrom);
    const gh = world.github.requests.slice(ghFrom);
    const dryWrites = bridge.logs.filter((l) => l.dryRun === true).length - dryFrom;
    say(
      `resync-cost: ${workloads} workloads in ${workloads / PER_SOURCE} Kustomizations over ${Math.min(NAMESPACES, workloads / PER_SOURCE)} namespaces; first pass (creates, dry run) ${(firstMs / 1000).toFixed(1)} s, ${created} deployments`,
    );
    say(
      `  one unchanged pass: wall ≈ ${(wallMs / 1000).toFixed(2)} s (from its first list request to queue drained, 200 ms settle included, polled), ` +
        `Kubernetes ${kube.length} requests (${(kube.length / workloads).toFixed(2)} per workload), GitHub ${gh.length}, registry 0 (annotated), would-be writes ${dryWrites}`,
    );
    say(formatTally(tally(kube.map((r) => kubeEndpoint(r.method, r.path)))));
    if (gh.length) say(formatTally(tally(gh.map((r) => githubEndpoint(r.method, r.path)))));
  } finally {
    await world.close();
  }
}

for (const n of SIZES) await measure(n);
