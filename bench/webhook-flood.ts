/**
 * A flood of bad webhook signatures against the bridge's HTTP app with 300 namespace keys (WEBHOOK_TOKEN_DIR) and
 * the shared key, and what `/healthz` answers meanwhile (issue 32: it answered in 1.8 s, past the liveness timeout,
 * when every bad signature was tried against every key). The app runs in a child process, as in the pod; the flood
 * (autocannon in a second child, loopback only, bounded to FLOOD_SECONDS at FLOOD_RATE a second at most), with 60 KiB bodies
 * naming a namespace that has a key, and `/healthz` is asked every 10 ms from this process, on its own connection, first without a flood (the machine's own noise). Twice: with the
 * default budget of failed signatures per address (past it, 429 before any digest), and with it lifted (every
 * request digested, with the shared key and its namespace's only).
 *   npm run bench -- webhook-flood        (FLOOD_SECONDS, FLOOD_RATE, CONNECTIONS, KEYS from the environment)
 */
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { createMetrics } from '../src/common/metrics.js';
import { buildApp } from '../src/http/http-app.js';
import { WebhookKeyring } from '../src/http/webhook-keys.js';
import { DeploymentStore } from '../src/store/deployment-store.js';
import { QueueStore } from '../src/store/queue-store.js';
import { SourceStore } from '../src/store/source-store.js';
import { fluxEvent } from '../test/harness/bridge-process.js';
import { load, say } from './common.js';
import { percentile } from './stats.js';
import { openDatabase } from '../test/harness/database.js';

const FLOOD_SECONDS = Number(process.env.FLOOD_SECONDS ?? 10);
/** Requests per second of the flood at most: FLOOD_RATE × FLOOD_SECONDS bounds its count. */
const FLOOD_RATE = Number(process.env.FLOOD_RATE ?? 3_000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const KEYS = Number(process.env.KEYS ?? 300);
const PROBE_EVERY_MS = 10;

/** The child: the bridge's app over a fresh database, with KEYS namespace keys; prints its address. */
async function serve(dir: string, ratePerMinute: number | undefined): Promise<void> {
  const keys = join(dir, 'keys');
  const db = openDatabase(join(dir, 'bench.db'));
  const app = await buildApp({
    webhookKeys: new WebhookKeyring({ shared: Buffer.from('shared-key-of-the-flux-system-provider-0001'), dir: keys, now: Date.now }),
    queue: new QueueStore(db),
    deployments: new DeploymentStore(db),
    sources: new SourceStore(db),
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
    onEnqueued: () => {},
    isShuttingDown: () => false,
    activeReconciles: () => 0,
    readiness: () => ({ ready: true, reasons: [] }),
    ...(ratePerMinute === undefined ? {} : { webhookRatePerMinute: ratePerMinute }),
  });
  process.send?.(await app.listen({ host: '127.0.0.1', port: 0 }));
}

interface Flood {
  total: number;
  codes: string;
}

/** The flooding child: bad signatures at `url` for FLOOD_SECONDS, at most FLOOD_RATE a second; sends back what it got. */
async function floodFrom(url: string): Promise<void> {
  // 60 KiB of message: the most a sender can make each digest cost (the body limit is 64 KiB).
  const body = fluxEvent('Kustomization', 'team-7', 'web', { message: 'x'.repeat(60 * 1024) });
  const r = await autocannon({
    url: `${url}/webhook`,
    connections: CONNECTIONS,
    duration: FLOOD_SECONDS,
    overallRate: FLOOD_RATE,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': `sha256=${'0'.repeat(64)}` },
    body,
  });
  const codes = Object.entries(r.statusCodeStats ?? {})
    .map(([code, s]) => `${code}: ${s.count ?? 0}`)
    .join(', ');
  process.send?.({ total: r.requests.total, codes } satisfies Flood);
}

/** One round: the server, `/healthz` probed meanwhile; a flood unless `ratePerMinute` is null. */
async function round(dir: string, label: string, ratePerMinute: number | undefined | null): Promise<void> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve', dir, String(ratePerMinute ?? '')]);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (m) => resolve(m as string));
      child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    });
    const probes: number[] = [];
    const flooding = { on: true };
    const probing = (async () => {
      while (flooding.on) {
        const t0 = performance.now();
        const res = await fetch(`${url}/healthz`);
        await res.arrayBuffer();
        probes.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
      }
    })();
    const flood = await new Promise<Flood>((resolve, reject) => {
      if (ratePerMinute === null) {
        setTimeout(() => resolve({ total: 0, codes: 'no flood' }), FLOOD_SECONDS * 1000);
        return;
      }
      const flooder = fork(fileURLToPath(import.meta.url), ['--flood', url]);
      flooder.once('message', (m) => resolve(m as Flood));
      flooder.once('exit', (code) => reject(new Error(`flood exited ${code}`)));
    });
    flooding.on = false;
    await probing;
    const ms = (p: number) => `${percentile(probes, p).toFixed(1)} ms`;
    say(
      `webhook flood, ${label}: ${flood.total} bad signatures in ${FLOOD_SECONDS} s (${flood.codes}), ${KEYS} namespace keys + shared; ` +
        `/healthz ${probes.length} probes: p50 ${ms(50)}, p99 ${ms(99)}, max ${ms(100)}; ${load()}`,
    );
  } finally {
    child.kill();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-bench-flood-'));
  try {
    const keys = join(dir, 'keys');
    mkdirSync(keys);
    for (let i = 0; i < KEYS; i++) writeFileSync(join(keys, `team-${i}`), `key-of-team-${i}-`.padEnd(48, '0'));
    await round(dir, 'no flood (the machine alone)', null);
    await round(dir, 'default failure budget (1,200 a minute per address, then 429 before any digest)', undefined);
    await round(dir, 'budget lifted (every request digested, shared key + its namespace key)', 1e9);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--flood') await floodFrom(process.argv[3] ?? '');
else if (process.argv[2] === '--serve') await serve(process.argv[3] ?? '', process.argv[4] ? Number(process.argv[4]) : undefined);
else await main();
