/** Queue writes that fail for lack of storage (disk full, read-only): the worker and the resync keep going. */
import Database from 'better-sqlite3';
import t from 'tap';
import { pino } from 'pino';
import type { KubeReader } from '../../src/kube/kube-types.js';
import { Resync } from '../../src/runtime/resync.js';
import { QueueStore, type QueueItem } from '../../src/store/queue-store.js';
import { STORE_RETRY_MS, Worker } from '../../src/runtime/worker.js';
import { openDatabase } from '../harness/database.js';

const log = pino({ level: 'silent' });
const ref = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'web' };
const full = () => new Database.SqliteError('database or disk is full', 'SQLITE_FULL');

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('condition not reached');
}

/** A storage tracker that records what the worker told it. */
function recorder() {
  const events: string[] = [];
  return {
    events,
    failed: (operation: string, err: unknown) => {
      if ((err as { code?: string }).code !== 'SQLITE_FULL') return undefined;
      events.push(`failed: ${operation}`);
      return 'disk full';
    },
    succeeded: () => {
      events.push('ok');
    },
  };
}

t.test('claiming fails: no crash, the worker looks again a second later and then runs the source', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  let broken = true;
  const claim = queue.claim.bind(queue);
  queue.claim = (now, limit) => {
    if (broken) throw full();
    return claim(now, limit);
  };
  const storage = recorder();
  const ran: QueueItem[] = [];
  const worker = new Worker({
    queue,
    concurrency: 1,
    log,
    now: Date.now,
    storage,
    run: (item) => {
      ran.push(item);
      return Promise.resolve(undefined);
    },
  });
  t.teardown(() => worker.stop(100));
  queue.enqueue(ref, Date.now());
  worker.start();
  t.same(storage.events, ['failed: claim queued work']);
  t.same(ran, []);
  await until(() => storage.events.length === 2, STORE_RETRY_MS + 2_000);
  t.same(storage.events, ['failed: claim queued work', 'failed: claim queued work'], 'retried on its own');
  broken = false;
  await until(() => queue.counts().pending + queue.counts().active === 0, STORE_RETRY_MS + 2_000);
  t.equal(ran.length, 1, 'ran once writes worked');
  t.equal(storage.events.at(-1), 'ok');
});

t.test('the outcome cannot be recorded: the row stays active, the source runs again once writes work', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  let broken = false;
  const complete = queue.complete.bind(queue);
  const fail = queue.fail.bind(queue);
  queue.complete = (r, now) => {
    if (broken) throw full();
    complete(r, now);
  };
  queue.fail = (r, at, e) => {
    if (broken) throw full();
    fail(r, at, e);
  };
  const storage = recorder();
  let runs = 0;
  const worker = new Worker({
    queue,
    concurrency: 1,
    log,
    now: Date.now,
    storage,
    run: () => {
      runs++;
      if (runs === 1) broken = true;
      return Promise.resolve(undefined);
    },
  });
  t.teardown(() => worker.stop(100));
  queue.enqueue(ref, Date.now());
  worker.start();
  await until(() => storage.events.includes('failed: record a reconcile outcome'));
  t.equal(runs, 1);
  t.same(queue.counts(), { pending: 0, active: 1 }, 'still active in the database: not claimed twice');
  await until(() => storage.events.filter((e) => e === 'failed: claim queued work').length >= 1, STORE_RETRY_MS + 2_000);
  t.equal(runs, 1, 'not run again while the outcome is unrecorded');
  broken = false;
  await until(() => runs === 2 && queue.counts().pending + queue.counts().active === 0, STORE_RETRY_MS + 3_000);
  t.pass('ran once more and completed');
  t.equal(storage.events.at(-1), 'ok');
});

t.test('an error that is not about storage still surfaces (a bug is not retried forever)', (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  queue.claim = () => {
    throw new Error('bug');
  };
  const worker = new Worker({ queue, concurrency: 1, log, now: Date.now, storage: recorder(), run: () => Promise.resolve(undefined) });
  t.teardown(() => worker.stop(100));
  t.throws(() => worker.start(), { message: 'bug' });
  t.end();
});

t.test('a resync pass that cannot write the queue is logged; the loop goes on', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  queue.enqueue = () => {
    throw full();
  };
  const warnings: string[] = [];
  const logger = pino(
    { level: 'warn' },
    {
      write: (line: string) => {
        warnings.push((JSON.parse(line) as { msg: string }).msg);
      },
    },
  );
  const kube = { listFluxObjects: () => Promise.resolve([]) } as unknown as KubeReader;
  const resync = new Resync({
    kube,
    queue,
    namespaces: [],
    intervalMs: 20,
    log: logger,
    now: Date.now,
    trackedSources: () => [ref],
    onEnqueued: () => undefined,
  });
  resync.start();
  await until(() => warnings.filter((m) => m === 'resync pass failed').length >= 2);
  await resync.stop();
  t.pass('two failed passes, no unhandled rejection');
});
