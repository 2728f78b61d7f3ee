/**
 * Benchmark 1, intake: signed Flux events per second that `POST /webhook` accepts (HMAC, schema,
 * durable enqueue in SQLite), against a bare fastify route in the same run, on loopback.
 *   npm run bench -- intake        (ROUNDS, SECONDS, CONNECTIONS from the environment)
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApp } from '../src/http/http-app.js';
import { signBody } from '../src/http/hmac.js';
import { createMetrics } from '../src/common/metrics.js';
import { DeploymentStore } from '../src/store/deployment-store.js';
import { QueueStore } from '../src/store/queue-store.js';
import { SourceStore } from '../src/store/source-store.js';
import { fluxEvent } from '../test/harness/bridge-process.js';
import { median } from './stats.js';
import { openDatabase } from '../test/harness/database.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const KEY = 'bench-hmac-key';
const SOURCES = 200;

async function bridgeApp(dir: string) {
  const db = openDatabase(join(dir, 'bench.db'));
  const queue = new QueueStore(db);
  let enqueued = 0;
  const app = await buildApp({
    webhookKey: Buffer.from(KEY),
    queue,
    deployments: new DeploymentStore(db),
    sources: new SourceStore(db),
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
    onEnqueued: () => {
      enqueued++;
    },
    isShuttingDown: () => false,
    activeReconciles: () => 0,
    readiness: () => ({ ready: true, reasons: [] }),
    webhookRatePerMinute: 1e9,
  });
  return {
    app,
    close: async () => {
      await app.close();
      db.close();
    },
    enqueued: () => enqueued,
  };
}

function bareApp() {
  const app = Fastify();
  app.post('/webhook', async (_req, reply) => reply.code(202).send({ status: 'queued' }));
  return { app, close: () => app.close() };
}

async function load(url: string, requests: Array<{ body: string; sig: string }>): Promise<{ rps: number; non2xx: number; p99: number }> {
  let i = 0;
  const result = await autocannon({
    url: `${url}/webhook`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          const r = requests[i++ % requests.length]!;
          return { ...req, method: 'POST', body: r.body, headers: { 'content-type': 'application/json', 'x-signature': r.sig } };
        },
      },
    ],
  });
  return { rps: result.requests.average, non2xx: result.non2xx, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  const requests = Array.from({ length: SOURCES }, (_, n) => {
    const body = fluxEvent('Kustomization', `team-${n % 20}`, `app-${n}`, { reason: 'ReconciliationSucceeded' });
    return { body, sig: signBody(KEY, body) };
  });
  const dir = mkdtempSync(join(tmpdir(), 'gdb-bench-'));
  const bridge: number[] = [];
  const bare: number[] = [];
  let failures = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const b = await bridgeApp(dir);
      const bu = await b.app.listen({ host: '127.0.0.1', port: 0 });
      const rb = await load(bu, requests);
      await b.close();
      const f = bareApp();
      const fu = await f.app.listen({ host: '127.0.0.1', port: 0 });
      const rf = await load(fu, requests);
      await f.close();
      failures += rb.non2xx + rf.non2xx;
      bridge.push(rb.rps);
      bare.push(rf.rps);
      process.stdout.write(
        `round ${round + 1}: bridge ${rb.rps.toFixed(0)} req/s (p99 ${rb.p99} ms), bare fastify ${rf.rps.toFixed(0)} req/s (p99 ${rf.p99} ms), ratio ${(rb.rps / rf.rps).toFixed(2)}\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const mb = median(bridge);
  const mf = median(bare);
  process.stdout.write(
    `intake: median of ${ROUNDS} rounds × ${SECONDS}s, ${CONNECTIONS} connections: bridge ${mb.toFixed(0)} req/s, bare fastify ${mf.toFixed(0)} req/s, ratio ${(mb / mf).toFixed(2)} (target ≥ 0.50); non-2xx answers: ${failures}\n`,
  );
}

await main();
