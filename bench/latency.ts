/**
 * Benchmark 2, latency: time from posting a Flux event for a Kustomization that is already Ready
 * (catch-up: the bridge sends a create and the terminal `success`) to that `success` status
 * arriving at the GitHub simulator; COUNT sequential deployments, simulator answering in 0 ms and 50 ms.
 * GITHUB_WRITE_INTERVAL is passed to the bridge (unset: its default, 1 s); GAP_MS, the pause before
 * each event, defaults to that interval + 100 ms so the previous deployment's spacing has passed.
 * ROUNDS > 1 repeats each latency and prints the median of the rounds' percentiles. Each run also prints the
 * bridge's CPU time per deployment (from /proc), steadier than the latencies on a shared machine.
 * To profile the bridge: BRIDGE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (it is stopped with SIGTERM,
 * so it writes its profile).
 *   COUNT=1000 node dist/bench/latency.js                  (needs `npx tsc -p .` first; ~2.2 s per deployment)
 *   GITHUB_WRITE_INTERVAL=0s COUNT=1000 ROUNDS=3 node dist/bench/latency.js
 */
import { readFileSync } from 'node:fs';
import { fluxEvent } from '../test/harness/bridge-process.js';
import { startWorld } from '../test/harness/world.js';
import { READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { parseDuration } from '../src/common/setting-parsers.js';
import { load, plentifulBudget, putAnnotatedDeployment, say, settled, writeInterval } from './common.js';
import { median, percentile } from './stats.js';

const N = Number(process.env.COUNT ?? process.env.N ?? 1000);
const LATENCIES = (process.env.LATENCIES ?? '0,50').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const POLL_MS = 2;
const spacing = writeInterval();
const intervalText = spacing.env.GITHUB_WRITE_INTERVAL ?? '1s';
const intervalMs = /^0+(\.0+)?(ms|s|m|h)?$/.test(intervalText) ? 0 : (parseDuration(intervalText) ?? 1000);
/** Pause before each event, so the write spacing after the previous deployment has passed (0: back to back). */
const GAP_MS = Number(process.env.GAP_MS ?? (intervalMs > 0 ? intervalMs + 100 : 0));

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat (Linux only). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on: utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/** One run's latencies, and the bridge's CPU time per deployment (less sensitive to the machine's load than the latencies). */
interface RunResult {
  ms: number[];
  cpuPerDeployment: number;
}

/** Latencies in ms of N sequential catch-up deployments against a simulator with the given answer delay. */
async function run(latencyMs: number): Promise<RunResult> {
  const world = await startWorld({ github: { latencyMs } });
  try {
    // The startup resync pass sees an empty cluster; each source appears just before its event.
    const bridge = await world.bridge({ ...spacing.env, ...plentifulBudget() });
    await settled(bridge);
    const out: number[] = [];
    const pid = bridge.child.pid ?? 0;
    const cpuBefore = cpuMs(pid);
    for (let i = 0; i < N; i++) {
      putAnnotatedDeployment(world, `app-${i}`, `app-${i}`, sha(`latency-${i}`));
      putKustomization(world, `app-${i}`, [`app-${i}`], READY);
      const path = new RegExp(`^/repos/acme/app-${i}/deployments/\\d+/statuses$`);
      if (GAP_MS > 0) await new Promise((r) => setTimeout(r, GAP_MS));
      const from = world.github.requests.length;
      const t0 = Date.now();
      const res = await bridge.post(fluxEvent('Kustomization', 'flux-system', `app-${i}`, { reason: 'ReconciliationSucceeded' }));
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
      for (;;) {
        const hit = world.github.requests
          .slice(from)
          .find((r) => r.method === 'POST' && path.test(r.path) && (r.body as { state?: string }).state === 'success');
        if (hit) {
          out.push(hit.time - t0);
          break;
        }
        if (Date.now() - t0 > 60_000) throw new Error(`app-${i}: no success status within 60 s`);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    }
    const cpuPerDeployment = (cpuMs(pid) - cpuBefore) / N;
    if (world.github.violations.length > 0) throw new Error(`schema violations: ${JSON.stringify(world.github.violations[0])}`);
    // A clean stop, so a bridge started with BRIDGE_NODE_ARGS=--cpu-prof writes its profile.
    await bridge.kill('SIGTERM');
    return { ms: out, cpuPerDeployment };
  } finally {
    await world.close();
  }
}

async function main(): Promise<void> {
  for (const latencyMs of LATENCIES) {
    const rounds: Array<{ p50: number; p99: number }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const started = Date.now();
      const { ms, cpuPerDeployment } = await run(latencyMs);
      const r = { p50: median(ms), p99: percentile(ms, 99) };
      rounds.push(r);
      say(
        `latency: simulator ${latencyMs} ms, ${spacing.label}, gap ${GAP_MS} ms, ${N} sequential catch-up deployments${ROUNDS > 1 ? `, round ${round}/${ROUNDS}` : ''} ` +
          `(${((Date.now() - started) / 1000).toFixed(0)} s): p50 ${r.p50.toFixed(0)} ms, p90 ${percentile(ms, 90).toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, ` +
          `min ${Math.min(...ms)} ms, max ${Math.max(...ms)} ms; bridge CPU ${cpuPerDeployment.toFixed(1)} ms per deployment; ${load()}`,
      );
    }
    if (ROUNDS > 1) {
      say(
        `latency: simulator ${latencyMs} ms, ${spacing.label}: median of ${ROUNDS} rounds p50 ${median(rounds.map((r) => r.p50)).toFixed(0)} ms, p99 ${median(rounds.map((r) => r.p99)).toFixed(0)} ms`,
      );
    }
  }
}

await main();
