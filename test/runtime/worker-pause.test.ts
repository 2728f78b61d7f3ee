import t from 'tap';
import { pino } from 'pino';
import { QueueStore, type QueueItem } from '../../src/store/queue-store.js';
import { Worker } from '../../src/runtime/worker.js';
import { ForgePaused } from '../../src/forges/forge-health.js';
import { openDatabase } from '../harness/database.js';

const log = pino({ level: 'silent' });
const ref = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'web' };

/** Resolves when `cond` holds (bounded), letting the worker's promises run. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!cond()) throw new Error('condition not reached');
}

t.test('while GitHub work is paused nothing starts; the queue keeps the source; it runs when the pause ends', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  const clock = { now: 1_000_000 };
  let paused: number | null = clock.now + 3_600_000;
  const ran: QueueItem[] = [];
  const worker = new Worker({
    queue,
    concurrency: 2,
    log,
    now: () => clock.now,
    pausedUntil: () => paused,
    run: (item) => {
      ran.push(item);
      return Promise.resolve(undefined);
    },
  });
  t.teardown(() => worker.stop(100));
  queue.enqueue(ref, clock.now);
  worker.start();
  worker.notify();
  await new Promise((r) => setTimeout(r, 30));
  t.same(ran, [], 'not run while paused');
  t.same(queue.counts(), { pending: 1, active: 0 }, 'still queued');
  paused = null;
  worker.notify();
  await until(() => ran.length === 1);
  await until(() => queue.counts().pending + queue.counts().active === 0);
  t.pass('ran once the pause was over, and completed');
});

t.test('a failure during a pause is due again at the pause end, not after the usual backoff', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  const clock = { now: 5_000_000 };
  let paused: number | null = null;
  const worker = new Worker({
    queue,
    concurrency: 1,
    log,
    now: () => clock.now,
    pausedUntil: () => paused,
    run: () => {
      paused = clock.now + 42 * 60_000;
      return Promise.reject(new Error('GitHub rate limit'));
    },
  });
  t.teardown(() => worker.stop(100));
  queue.enqueue(ref, clock.now);
  worker.start();
  await until(() => queue.list()[0]?.attempts === 1);
  t.match(queue.list(), [{ state: 'pending', attempts: 1, notBefore: clock.now + 42 * 60_000, lastError: 'GitHub rate limit' }]);
});

t.test(
  'a failure that names its time (a paused credential scope) is due then, whatever its attempts; the worker keeps working',
  async (t) => {
    const db = openDatabase(':memory:');
    t.teardown(() => db.close());
    const queue = new QueueStore(db);
    const clock = { now: 5_000_000 };
    const other = { ...ref, name: 'other' };
    const ran: string[] = [];
    const worker = new Worker({
      queue,
      concurrency: 1,
      log,
      now: () => clock.now,
      pausedUntil: () => null,
      run: (item) => {
        ran.push(item.name);
        if (item.name === 'other') return Promise.resolve(undefined);
        return Promise.reject(
          new ForgePaused({
            forge: 'GitHub',
            scope: 'installation 7',
            kind: 'secondary',
            since: clock.now,
            until: clock.now + 90_000,
            reason: 'secondary rate limit',
          }),
        );
      },
    });
    t.teardown(() => worker.stop(100));
    queue.enqueue(ref, clock.now);
    worker.start();
    await until(() => queue.list()[0]?.attempts === 1);
    t.match(queue.list(), [{ name: 'web', notBefore: clock.now + 90_000, lastError: /^GitHub requests of installation 7 paused until / }]);
    // Many pauses later its backoff would be minutes; the pause's end still decides.
    db.prepare('UPDATE queue SET attempts = 9, not_before = ?').run(clock.now);
    worker.notify();
    await until(() => queue.list()[0]?.attempts === 10);
    t.match(queue.list(), [{ name: 'web', notBefore: clock.now + 90_000 }]);
    queue.enqueue(other, clock.now);
    worker.notify();
    await until(() => ran.includes('other'));
    t.pass('another source runs meanwhile');
  },
);
