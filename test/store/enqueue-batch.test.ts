import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { EnqueueBatcher } from '../../src/store/enqueue-batch.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { openDatabase } from '../harness/database.js';

const ref = (name: string) => ({ kind: 'Kustomization' as const, namespace: 'flux-system', name });

t.test('enqueues of one tick share one transaction; each settles after its row is written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-batch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'q.db'));
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  const batches: number[] = [];
  const original = queue.enqueueMany.bind(queue);
  queue.enqueueMany = (items) => {
    batches.push(items.length);
    original(items);
  };
  const batcher = new EnqueueBatcher(queue);

  const first = Array.from({ length: 50 }, (_, i) => batcher.enqueue(ref(`app-${i % 10}`), 1000, 1000));
  await Promise.all(first);
  t.same(batches, [50], 'fifty events, one transaction');
  t.equal(queue.counts().pending, 10, 'coalesced per source');
  await batcher.enqueue(ref('late'), 2000, null);
  t.same(batches, [50, 1], 'a later event gets its own transaction');
});

t.test('a failed write rejects every event of the batch, and the next batch works again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-batch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'q.db'));
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  const original = queue.enqueueMany.bind(queue);
  let fail = true;
  queue.enqueueMany = (items) => {
    if (fail) throw new Error('SQLITE_FULL: database or disk is full');
    original(items);
  };
  const batcher = new EnqueueBatcher(queue);
  const results = await Promise.allSettled([batcher.enqueue(ref('a'), 1, null), batcher.enqueue(ref('b'), 1, null)]);
  t.same(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  t.equal(queue.counts().pending, 0);
  fail = false;
  await batcher.enqueue(ref('a'), 2, null);
  t.equal(queue.counts().pending, 1);
});
