/** The webhook when the queue cannot be written: 503 with the reason, never a 202; 202 again once it can. */
import Database from 'better-sqlite3';
import t from 'tap';
import { pino } from 'pino';
import { buildApp } from '../../src/http/http-app.js';
import { signBody } from '../../src/http/hmac.js';
import { createMetrics } from '../../src/common/metrics.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { StorageHealth } from '../../src/store/storage-health.js';
import { bridgeSection } from '../../src/http/cluster-state.js';
import type { StateBody } from '../harness/state-body.js';
import { openDatabase } from '../harness/database.js';

const KEY = Buffer.from('bridge-webhook-key');
const body = JSON.stringify({
  involvedObject: {
    kind: 'Kustomization',
    namespace: 'flux-system',
    name: 'web',
    uid: 'u',
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    resourceVersion: '1',
  },
  severity: 'info',
  timestamp: '2025-03-01T10:00:00Z',
  message: 'Applied',
  reason: 'ReconciliationSucceeded',
  metadata: { revision: 'main@sha1:07a684d59d1bc9a58e0c0d07ed480812b2b9a29e' },
  reportingController: 'kustomize-controller',
  reportingInstance: 'k',
});

t.test('queue write fails for lack of storage: 503 naming the cause, not ready in /state; then 202 again', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  let broken = true;
  const enqueueMany = queue.enqueueMany.bind(queue);
  queue.enqueueMany = (items) => {
    if (broken) throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    enqueueMany(items);
  };
  const metrics = createMetrics();
  const storage = new StorageHealth({
    path: '/data/bridge.db',
    now: () => Date.parse('2025-03-01T10:00:00Z'),
    probe: () => undefined,
    diagnose: () => 'no space left on the file system of /data (ENOSPC)',
  });
  let woken = 0;
  const app = await buildApp({
    webhookKey: KEY,
    queue,
    deployments: new DeploymentStore(db),
    sources: new SourceStore(db),
    metrics,
    log: pino({ level: 'silent' }),
    now: Date.now,
    onEnqueued: () => {
      woken++;
    },
    isShuttingDown: () => false,
    readiness: () => ({ ready: storage.reason() === undefined, reasons: storage.reason() ? [storage.reason()!] : [] }),
    activeReconciles: () => 0,
    storage,
    sections: [bridgeSection({ clusters: () => [], storage: () => storage.snapshot(), registryCache: () => ({ digests: 0, tags: 0 }) })],
  });
  t.teardown(() => app.close());
  const post = () =>
    app.inject({
      method: 'POST',
      url: '/webhook',
      payload: body,
      headers: { 'content-type': 'application/json', 'x-signature': signBody(KEY, body) },
    });

  const refused = await post();
  t.equal(refused.statusCode, 503);
  t.same(refused.json(), {
    error:
      'cannot record the event now: database /data/bridge.db cannot be written: no space left on the file system of /data (ENOSPC) (database or disk is full, SQLITE_FULL) since 2025-03-01T10:00:00.000Z; retry later',
  });
  t.equal(woken, 0, 'the worker is not woken for nothing');
  t.same(queue.counts(), { pending: 0, active: 0 });
  const state = (await app.inject({ method: 'GET', url: '/state' })).json<Pick<StateBody, 'storage' | 'readiness'>>();
  t.match(state.storage, {
    path: '/data/bridge.db',
    writable: false,
    problem: { code: 'SQLITE_FULL', operation: 'record a webhook event', failures: 1 },
  });
  t.equal(state.readiness.ready, false);
  t.match((await app.inject({ method: 'GET', url: '/metrics' })).body, /gdb_events_total\{kind="Kustomization",result="store_failed"\} 1/);

  broken = false;
  const accepted = await post();
  t.equal(accepted.statusCode, 202);
  t.equal(woken, 1);
  t.same(queue.counts(), { pending: 1, active: 0 });
  t.equal(
    (await app.inject({ method: 'GET', url: '/state' })).json<Pick<StateBody, 'storage'>>().storage.writable,
    true,
    'a write that went through clears it',
  );
});
