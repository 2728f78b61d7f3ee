/**
 * Benchmark 2, latency: time from posting a Flux event for a Kustomization that is already Ready
 * (catch-up: the bridge sends a create and the terminal `success`) to that `success` status
 * arriving at the GitHub simulator; N sequential deployments, simulator answering in 0 ms and 50 ms.
 *   N=30 GAP_MS=1100 node dist/bench/latency.js   (needs `npx tsc -p .` first; ~2 s per deployment)
 */
import { fluxEvent } from '../test/harness/bridge-process.js';
import { startWorld } from '../test/harness/world.js';
import { READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { putAnnotatedDeployment, say, settled } from './common.js';
import { median, percentile } from './stats.js';

const N = Number(process.env.N ?? 30);
const LATENCIES = [0, 50];
const POLL_MS = 2;
/** Pause before each event, so the throttler's 1 s write spacing after the previous deployment has passed (0: back to back). */
const GAP_MS = Number(process.env.GAP_MS ?? 1100);

/** Latencies in ms of N sequential catch-up deployments against a simulator with the given answer delay. */
async function run(latencyMs: number): Promise<number[]> {
  const world = await startWorld({ github: { latencyMs } });
  try {
    // The startup resync pass sees an empty cluster; each source appears just before its event.
    const bridge = await world.bridge();
    await settled(bridge);
    const out: number[] = [];
    for (let i = 0; i < N; i++) {
      putAnnotatedDeployment(world, `app-${i}`, `app-${i}`, sha(`latency-${i}`));
      putKustomization(world, `app-${i}`, [`app-${i}`], READY);
      const path = new RegExp(`^/repos/acme/app-${i}/deployments/\\d+/statuses$`);
      await new Promise((r) => setTimeout(r, GAP_MS));
      const from = world.github.requests.length;
      const t0 = Date.now();
      const res = await bridge.post(fluxEvent('Kustomization', 'flux-system', `app-${i}`, { reason: 'ReconciliationSucceeded' }));
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
      for (;;) {
        const hit = world.github.requests.slice(from).find((r) => r.method === 'POST' && path.test(r.path) && (r.body as { state?: string }).state === 'success');
        if (hit) {
          out.push(hit.time - t0);
          break;
        }
        if (Date.now() - t0 > 60_000) throw new Error(`app-${i}: no success status within 60 s`);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    }
    if (world.github.violations.length > 0) throw new Error(`schema violations: ${JSON.stringify(world.github.violations[0])}`);
    return out;
  } finally {
    await world.close();
  }
}

async function main(): Promise<void> {
  for (const latencyMs of LATENCIES) {
    const started = Date.now();
    const ms = await run(latencyMs);
    say(`latency: simulator ${latencyMs} ms, gap ${GAP_MS} ms, ${N} sequential catch-up deployments (${((Date.now() - started) / 1000).toFixed(0)} s): `
      + `p50 ${median(ms).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, min ${Math.min(...ms)} ms, max ${Math.max(...ms)} ms`);
  }
}

await main();
