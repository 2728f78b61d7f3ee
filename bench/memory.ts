/**
 * Benchmark 5, memory: RSS of the real bridge process (VmRSS from /proc) idle; with TRACKED deployments
 * it reported (TRACKED opted-in workloads, 10 per Kustomization, one repository each, created for real
 * against the simulator with GITHUB_WRITE_INTERVAL=0s, or with DRY_RUN=true when TRACKED_MODE=dry-run);
 * then after EVENTS signed webhook events spread round-robin over those Kustomizations (each reconcile
 * finds nothing changed); once the queue drained; and 5 s later. Also the SQLite file size.
 * The webhook allows 1,200 requests per client address per minute; the events are sent from ADDRESSES
 * loopback addresses (127.0.0.2…) so the limit does not throttle the benchmark. Next to each RSS: the V8
 * heap used / total from the bridge's /metrics (RSS also holds garbage not yet collected).
 *   TRACKED=10000 EVENTS=100000 node dist/bench/memory.js      (needs `npx tsc -p .` first; Linux only)
 * DORA_ENVIRONMENTS, when set, is passed on to the bridge (which gets no other variable of the benchmark's).
 */
import { existsSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { signBody } from '../src/http/hmac.js';
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { WEBHOOK_KEY, startWorld } from '../test/harness/world.js';
import { READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { load, plentifulBudget, putAnnotatedDeployment, rssMiB, say, settled, tally } from './common.js';

const TRACKED = Number(process.env.TRACKED ?? 10_000);
const EVENTS = Number(process.env.EVENTS ?? 100_000);
const DRY = process.env.TRACKED_MODE === 'dry-run';
const PER_SOURCE = 10;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const ADDRESSES = Number(process.env.ADDRESSES ?? 200);
const DORA_ENVIRONMENTS = process.env.DORA_ENVIRONMENTS;

/** Keeps connections open per local address, as Flux's HTTP client does. */
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** POSTs one signed body from a given local loopback address; resolves with the status code. */
function post(url: URL, body: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/webhook',
        method: 'POST',
        localAddress,
        agent,
        signal: AbortSignal.timeout(10_000),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-signature': signBody(WEBHOOK_KEY, body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `count` signed events for the sources `name(i)`, CONCURRENCY at a time; the answers' status codes. */
async function blast(url: URL, count: number, name: (i: number) => string, sample: () => void): Promise<number[]> {
  const codes: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const body = fluxEvent('Kustomization', 'flux-system', name(i), { reason: 'ReconciliationSucceeded' });
        codes.push(await post(url, body, `127.0.0.${2 + (i % ADDRESSES)}`));
        if (i % 1000 === 0) sample();
      }
    }),
  );
  return codes;
}

/** Bytes of the SQLite database with its WAL and shared-memory files. */
function dbBytes(path: string): string {
  const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
  const [db, wal, shm] = [size(path), size(`${path}-wal`), size(`${path}-shm`)];
  return `${((db + wal + shm) / 2 ** 20).toFixed(1)} MiB (db ${(db / 2 ** 20).toFixed(1)}, wal ${(wal / 2 ** 20).toFixed(1)}, shm ${(shm / 2 ** 20).toFixed(2)})`;
}

/** `heap used/total MiB` from the bridge's default process metrics. */
async function heap(bridge: BridgeProcess): Promise<string> {
  const text = await bridge.metrics();
  const mib = (name: string) => (Number(new RegExp(`^nodejs_heap_size_${name}_bytes (\\S+)$`, 'm').exec(text)?.[1]) / 2 ** 20).toFixed(1);
  return `heap ${mib('used')}/${mib('total')} MiB`;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const answers = (codes: number[]) =>
  tally(codes.map(String))
    .map(([k, n]) => `${k}×${n}`)
    .join(', ');

async function main(): Promise<void> {
  const world = await startWorld({ github: { requestsPerHour: 100_000_000 } });
  try {
    const env: Record<string, string> = {
      ...(DRY ? { DRY_RUN: 'true' } : { GITHUB_WRITE_INTERVAL: '0s', ...plentifulBudget() }),
      // The bridge gets only the environment given here: DORA_ENVIRONMENTS is passed on when the benchmark has it.
      ...(DORA_ENVIRONMENTS === undefined ? {} : { DORA_ENVIRONMENTS }),
    };
    const bridge = await world.bridge(env);
    const dbPath = world.env().DATABASE_PATH!;
    const pid = bridge.child.pid!;
    await settled(bridge);
    await pause(2000);
    const idle = rssMiB(pid);
    say(
      `memory: ${DRY ? 'DRY_RUN=true' : 'GITHUB_WRITE_INTERVAL=0s against the simulator'}${DORA_ENVIRONMENTS === undefined ? '' : `, DORA_ENVIRONMENTS=${DORA_ENVIRONMENTS}`}; idle RSS ${idle.toFixed(1)} MiB (${await heap(bridge)}), SQLite ${dbBytes(dbPath)}; ${load()}`,
    );

    // TRACKED workloads appear (10 per Kustomization, each its own repository); Flux reports each Kustomization once.
    const sources = Math.ceil(TRACKED / PER_SOURCE);
    for (let s = 0; s < sources; s++) {
      const names = Array.from({ length: Math.min(PER_SOURCE, TRACKED - s * PER_SOURCE) }, (_, k) => `w-${s * PER_SOURCE + k}`);
      for (const n of names) putAnnotatedDeployment(world, n, n, sha(n));
      putKustomization(world, `src-${s}`, names, READY);
    }
    const url = new URL(bridge.url);
    let peak = idle;
    const sample = () => {
      peak = Math.max(peak, rssMiB(pid));
    };
    const sampler = setInterval(sample, 250); // also while waiting for the queue to drain
    const t1 = Date.now();
    const trackCodes = await blast(url, sources, (i) => `src-${i}`, sample);
    const expected = DRY ? TRACKED : 2 * TRACKED;
    const done = () => (DRY ? bridge.logs.filter((l) => l.dryRun === true).length : world.github.writes().length);
    await bridge.waitFor(
      `${expected} writes`,
      () => {
        sample();
        return done() >= expected;
      },
      3_600_000,
    );
    await settled(bridge, 900_000);
    const trackMs = Date.now() - t1;
    const peakTracking = peak;
    await pause(5000);
    const tracked = rssMiB(pid);
    const state = (await bridge.state()) as { skipped?: unknown[] };
    const cached = [...(await bridge.metrics()).matchAll(/^gdb_deployments\{forge="\w+",state="(\w+)"\} (\d+)/gm)]
      .map((m) => `${m[1]} ${m[2]}`)
      .join(', ');
    say(
      `  ${TRACKED} tracked deployments (${sources} events, answers ${answers(trackCodes)}; ${done()} ${DRY ? 'dry-run writes' : 'GitHub writes'} in ${(trackMs / 1000).toFixed(1)} s; ` +
        `cached rows by state: ${cached || 'n/a'}; skipped ${state.skipped?.length ?? '?'}): RSS ${tracked.toFixed(1)} MiB (${await heap(bridge)}; highest RSS sampled while creating ${peakTracking.toFixed(1)} MiB), SQLite ${dbBytes(dbPath)}; ${load()}`,
    );

    peak = tracked;
    const writesBefore = world.github.writes().length;
    const t2 = Date.now();
    const codes = await blast(url, EVENTS, (i) => `src-${i % sources}`, sample);
    const sendMs = Date.now() - t2;
    const afterEvents = rssMiB(pid);
    const heapAfterEvents = await heap(bridge);
    sample();
    await settled(bridge, 1_800_000);
    const drainedMs = Date.now() - t2;
    const afterDrain = rssMiB(pid);
    const heapAfterDrain = await heap(bridge);
    sample();
    await pause(5000);
    clearInterval(sampler);
    const later = rssMiB(pid);
    const heapLater = await heap(bridge);
    const metrics = await bridge.metrics();
    const reconciles = [...metrics.matchAll(/^gdb_reconciles_total\{outcome="(\w+)"\} (\d+)/gm)].map((m) => `${m[1]} ${m[2]}`).join(', ');
    say(
      `  after ${EVENTS} events round-robin over the ${sources} Kustomizations (sent in ${(sendMs / 1000).toFixed(1)} s, ${(EVENTS / (sendMs / 1000)).toFixed(0)}/s, answers ${answers(codes)}): ` +
        `RSS ${afterEvents.toFixed(1)} MiB (${heapAfterEvents}); queue drained ${(drainedMs / 1000).toFixed(1)} s after the first: ${afterDrain.toFixed(1)} MiB (${heapAfterDrain}); ` +
        `5 s later ${later.toFixed(1)} MiB (${heapLater}); ` +
        `highest sampled during the events ${peak.toFixed(1)} MiB; SQLite ${dbBytes(dbPath)}; ${load()}`,
    );
    say(
      `  reconciles (whole run): ${reconciles || 'n/a'}; GitHub writes caused by the events ${world.github.writes().length - writesBefore}; schema violations ${world.github.violations.length}`,
    );
  } finally {
    agent.destroy();
    await world.close();
  }
}

await main();
