import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { createMetrics } from '../../src/common/metrics.js';
import { secretValue } from '../../src/config/rotating-secret.js';
import { buildApp } from '../../src/http/http-app.js';
import { openDatabase } from '../../src/store/database.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';

t.test('STATE_TOKEN_FILE: the token the file holds at each request; an unreadable file lets nobody in', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-state-token-'));
  const db = openDatabase(':memory:');
  const path = join(dir, 'token');
  writeFileSync(path, 'first\n');
  const app = await buildApp({
    webhookKey: Buffer.from('k'),
    queue: new QueueStore(db),
    deployments: new DeploymentStore(db),
    sources: new SourceStore(db),
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
    onEnqueued: () => undefined,
    isShuttingDown: () => false,
    readiness: () => ({ ready: true, reasons: [] }),
    activeReconciles: () => 0,
    stateToken: secretValue({ kind: 'file', path }),
  });
  t.teardown(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const status = async (token: string) => (await app.inject({ url: '/state', headers: { authorization: `Bearer ${token}` } })).statusCode;
  t.equal(await status('first'), 200);
  writeFileSync(path, 'second\n');
  t.equal(await status('first'), 401, 'the old token, once rotated');
  t.equal(await status('second'), 200, 'the new one, without a restart');
  rmSync(path);
  t.equal(await status('second'), 401, 'the file gone');
  t.equal((await app.inject({ url: '/state' })).statusCode, 401, 'no header either');
});
