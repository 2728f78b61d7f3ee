/**
 * Benchmark 5, memory: RSS of the real bridge process (VmRSS from /proc) idle, then after EVENTS
 * signed webhook events to as many distinct Flux sources, none of which exists in the fake cluster
 * (so each reconcile finds the source gone and does no GitHub work), and once the queue drained.
 * The webhook allows 1,200 requests per client address per minute; the events are sent from
 * ADDRESSES loopback addresses (127.0.0.2…) so the limit does not throttle the benchmark.
 *   EVENTS=10000 node dist/bench/memory.js      (needs `npx tsc -p .` first; Linux only)
 */
import { request } from 'node:http';
import { signBody } from '../src/http/hmac.js';
import { fluxEvent } from '../test/harness/bridge-process.js';
import { WEBHOOK_KEY, startWorld } from '../test/harness/world.js';
import { rssMiB, say, settled, tally } from './common.js';

const EVENTS = Number(process.env.EVENTS ?? 10_000);
const CONCURRENCY = 16;
const ADDRESSES = 16;

/** POSTs one signed body from a given local loopback address; resolves with the status code. */
function post(url: URL, body: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname, port: url.port, path: '/webhook', method: 'POST', localAddress, signal: AbortSignal.timeout(10_000),
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-signature': signBody(WEBHOOK_KEY, body) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const world = await startWorld();
  try {
    const bridge = await world.bridge();
    const pid = bridge.child.pid!;
    await settled(bridge);
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssMiB(pid);
    const url = new URL(bridge.url);
    const codes: number[] = [];
    let next = 0;
    let peak = idle;
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < EVENTS; i = next++) {
        const body = fluxEvent('Kustomization', `team-${i % 50}`, `absent-${i}`, { reason: 'ReconciliationSucceeded' });
        codes.push(await post(url, body, `127.0.0.${2 + (i % ADDRESSES)}`));
        if (i % 500 === 0) peak = Math.max(peak, rssMiB(pid));
      }
    }));
    const sendMs = Date.now() - t0;
    const afterEvents = rssMiB(pid);
    peak = Math.max(peak, afterEvents);
    await settled(bridge, 900_000);
    const drainedMs = Date.now() - t0;
    const afterDrain = rssMiB(pid);
    peak = Math.max(peak, afterDrain);
    await new Promise((r) => setTimeout(r, 5000));
    const later = rssMiB(pid);
    say(`memory: bridge RSS idle ${idle.toFixed(1)} MiB; after ${EVENTS} events to ${EVENTS} absent sources (sent in ${(sendMs / 1000).toFixed(1)} s, answers ${tally(codes.map(String)).map(([k, n]) => `${k}×${n}`).join(', ')}) `
      + `${afterEvents.toFixed(1)} MiB; queue drained after ${(drainedMs / 1000).toFixed(1)} s: ${afterDrain.toFixed(1)} MiB; 5 s later ${later.toFixed(1)} MiB; highest sampled ${peak.toFixed(1)} MiB; `
      + `GitHub writes ${world.github.writes().length}`);
  } finally {
    await world.close();
  }
}

await main();
