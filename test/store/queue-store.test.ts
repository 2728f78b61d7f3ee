import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Db } from '../../src/store/database.js';
import { QueueStore } from '../../src/store/queue-store.js';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import { openDatabase } from '../harness/database.js';

const apps: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const infra: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' };
const podinfo: SourceRef = { kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' };

/** A database file in a fresh temp dir; every handle opened through `open` is closed at teardown. */
function fixture(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-queue-'));
  const path = join(dir, 'state', 'bridge.db');
  const handles: Db[] = [];
  t.teardown(() => {
    for (const db of handles) if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = () => {
    const db = openDatabase(path);
    handles.push(db);
    return { db, queue: new QueueStore(db) };
  };
  return { path, open };
}

const row = (q: QueueStore, ref: SourceRef) =>
  q.list().find((r) => r.kind === ref.kind && r.namespace === ref.namespace && r.name === ref.name);

t.test('enqueue coalesces per source', (t) => {
  const { queue } = fixture(t).open();
  for (let i = 0; i < 10; i++) queue.enqueue(apps, 1000 + i);
  t.equal(queue.list().length, 1, 'ten enqueues → one row');
  t.same(queue.counts(), { pending: 1, active: 0 });
  t.equal(row(queue, apps)?.notBefore, 1000, 'the first enqueue sets when it is due');
  queue.enqueue(infra, 2000);
  queue.enqueue(podinfo, 2000);
  queue.enqueue({ ...apps, kind: 'HelmRelease' }, 2000);
  t.equal(queue.list().length, 4, 'kind, namespace and name all make the key');
  t.end();
});

t.test('claim marks active, in due order, up to the limit', (t) => {
  const { queue } = fixture(t).open();
  queue.enqueue(podinfo, 30);
  queue.enqueue(apps, 10, 5);
  queue.enqueue(infra, 20);
  t.same(queue.claim(5, 10), [], 'nothing due yet');
  const first = queue.claim(100, 2);
  t.same(first, [
    { ...apps, attempts: 0, firstEventAt: 5, viaResync: false },
    { ...infra, attempts: 0, firstEventAt: null, viaResync: false },
  ]);
  t.same(queue.counts(), { pending: 1, active: 2 });
  t.same(queue.claim(100, 10), [{ ...podinfo, attempts: 0, firstEventAt: null, viaResync: false }]);
  t.same(queue.claim(100, 10), [], 'active rows are not claimed twice');
  t.same(queue.counts(), { pending: 0, active: 3 });
  t.equal(queue.nextDue(), null, 'nothing pending');
  t.end();
});

t.test('firstEventAt keeps the earliest event until claimed', (t) => {
  const { queue } = fixture(t).open();
  queue.enqueue(apps, 100, null);
  queue.enqueue(apps, 110, 105);
  queue.enqueue(apps, 120, 115);
  t.equal(queue.claim(200, 1)[0]?.firstEventAt, 105);
  queue.enqueue(apps, 210, 205);
  queue.complete(apps, 220);
  t.equal(queue.claim(300, 1)[0]?.firstEventAt, 205, 'an event during the run is kept for the next');
  t.end();
});

t.test('an enqueue while active runs the source once more', (t) => {
  const { queue } = fixture(t).open();
  queue.enqueue(apps, 100);
  t.equal(queue.claim(100, 1).length, 1);
  queue.enqueue(apps, 150);
  queue.enqueue(apps, 160);
  t.same(queue.claim(200, 10), [], 'still active: not claimable while dirty');
  t.same(queue.counts(), { pending: 0, active: 1 });
  queue.complete(apps, 300);
  t.match(row(queue, apps), { state: 'pending', attempts: 0, notBefore: 300, lastError: null }, 'pending again, due now');
  t.same(queue.claim(300, 1), [{ ...apps, attempts: 0, firstEventAt: null, viaResync: false }]);
  queue.complete(apps, 400);
  t.equal(row(queue, apps), undefined, 'complete without a new event deletes the row');
  t.same(queue.counts(), { pending: 0, active: 0 });
  t.end();
});

t.test('complete of an unknown source is harmless', (t) => {
  const { queue } = fixture(t).open();
  queue.complete(apps, 100);
  t.same(queue.list(), []);
  t.end();
});

t.test('fail sets backoff, attempts and the error', (t) => {
  const { queue } = fixture(t).open();
  queue.enqueue(apps, 100);
  queue.claim(100, 1);
  queue.fail(apps, 5000, 'GitHub 502');
  t.match(row(queue, apps), { state: 'pending', attempts: 1, notBefore: 5000, lastError: 'GitHub 502' });
  t.equal(queue.nextDue(), 5000);
  t.same(queue.claim(4999, 10), [], 'not before the backoff ends');
  queue.enqueue(apps, 4000, null, true);
  t.equal(row(queue, apps)?.notBefore, 5000, 'the resync does not cut the backoff short');
  t.same(queue.claim(5000, 10), [{ ...apps, attempts: 1, firstEventAt: null, viaResync: false }]);
  queue.fail(apps, 9000, 'timeout');
  t.match(row(queue, apps), { attempts: 2, notBefore: 9000, lastError: 'timeout' });
  queue.enqueue(apps, 6000, 6000);
  t.match(row(queue, apps), { attempts: 2, notBefore: 6000 }, 'a Flux event ends the backoff now (attempts kept)');
  queue.claim(9000, 1);
  queue.enqueue(apps, 9100);
  queue.complete(apps, 9200);
  t.match(row(queue, apps), { state: 'pending', attempts: 0, lastError: null }, 'a success clears the retry state');
  queue.claim(9200, 1);
  queue.complete(apps, 9300);
  t.equal(row(queue, apps), undefined);
  t.end();
});

t.test('a replayed event cannot end every backoff: a run an event started that fails again waits in full', (t) => {
  const { queue } = fixture(t).open();
  const event = (at: number) => queue.enqueue(apps, at, at);
  const failAt = (at: number, retryAt: number) => {
    t.equal(queue.claim(at, 1).length, 1, `runs at ${at}`);
    queue.fail(apps, retryAt, 'GitHub 502');
  };
  queue.enqueue(apps, 0);
  failAt(0, 1000);
  event(10);
  t.match(row(queue, apps), { attempts: 1, notBefore: 10 }, 'the first event cuts the backoff short');
  failAt(10, 3000);
  event(20);
  event(30);
  t.match(row(queue, apps), { attempts: 2, notBefore: 3000 }, 'the run it started failed: the replays wait the full backoff');
  failAt(3000, 7000);
  event(3010);
  t.match(row(queue, apps), { attempts: 3, notBefore: 3010 }, 'a step later an event may cut again');
  failAt(3010, 15000);
  event(3020);
  t.match(row(queue, apps), { attempts: 4, notBefore: 15000 }, 'and then not');
  t.equal(queue.claim(15000, 1).length, 1);
  queue.complete(apps, 15000);
  queue.enqueue(apps, 16000);
  failAt(16000, 17000);
  event(16010);
  t.match(row(queue, apps), { attempts: 1, notBefore: 16010 }, 'a success starts over');
  t.end();
});

t.test('a failure while dirty still waits for the backoff', (t) => {
  const { queue } = fixture(t).open();
  queue.enqueue(apps, 100);
  queue.claim(100, 1);
  queue.enqueue(apps, 150);
  queue.fail(apps, 1000, 'boom');
  t.same(queue.claim(999, 1), []);
  t.equal(queue.claim(1000, 1).length, 1);
  queue.complete(apps, 1100);
  t.equal(row(queue, apps), undefined, 'the dirty mark was consumed by the failed run');
  t.end();
});

t.test('nextDue and counts', (t) => {
  const { queue } = fixture(t).open();
  t.equal(queue.nextDue(), null);
  t.same(queue.counts(), { pending: 0, active: 0 });
  queue.enqueue(apps, 700);
  queue.enqueue(infra, 500);
  t.equal(queue.nextDue(), 500);
  queue.claim(600, 10);
  t.equal(queue.nextDue(), 700, 'active rows do not count');
  t.same(queue.counts(), { pending: 1, active: 1 });
  t.end();
});

t.test('after a crash, active sources are pending again', (t) => {
  const f = fixture(t);
  const before = f.open();
  before.queue.enqueue(apps, 100);
  before.queue.enqueue(infra, 100);
  before.queue.enqueue(podinfo, 100);
  before.queue.claim(100, 2);
  before.db.close();
  const after = f.open();
  t.same(after.queue.counts(), { pending: 1, active: 2 }, 'active state survived the restart');
  t.equal(after.queue.recover(), 2);
  t.same(after.queue.counts(), { pending: 3, active: 0 });
  t.equal(after.queue.claim(100, 10).length, 3);
  t.equal(after.queue.recover(), 3);
  t.equal(after.queue.recover(), 0, 'nothing left to recover');
  t.end();
});

t.test('durability: what was enqueued is there after reopening', (t) => {
  const f = fixture(t);
  const first = f.open();
  first.queue.enqueue(podinfo, 1234, 1200);
  first.queue.enqueue(apps, 1300);
  first.queue.fail(apps, 9999, 'registry 503');
  first.db.close();
  const second = f.open();
  t.same(second.queue.list(), [
    { ...podinfo, state: 'pending', attempts: 0, notBefore: 1234, lastError: null },
    { ...apps, state: 'pending', attempts: 1, notBefore: 9999, lastError: 'registry 503' },
  ]);
  t.same(second.queue.claim(2000, 10), [{ ...podinfo, attempts: 0, firstEventAt: 1200, viaResync: false }]);
  t.end();
});

t.test('list honours its limit', (t) => {
  const { queue } = fixture(t).open();
  for (let i = 0; i < 5; i++) queue.enqueue({ ...apps, name: `app-${i}` }, i);
  t.equal(queue.list(3).length, 3);
  t.same(
    queue.list(2).map((r) => r.name),
    ['app-0', 'app-1'],
  );
  t.end();
});

t.test('schedule: a re-check later, unless the source is already due sooner', (t) => {
  const { queue } = fixture(t).open();
  queue.schedule(apps, 5000);
  t.equal(queue.claim(4999, 10).length, 0, 'not due before its time');
  t.equal(row(queue, apps)?.notBefore, 5000);
  queue.schedule(apps, 9000);
  t.equal(row(queue, apps)?.notBefore, 5000, 'a later re-check does not postpone it');
  queue.enqueue(infra, 100);
  queue.schedule(infra, 7000);
  t.equal(row(queue, infra)?.notBefore, 100, 'an event already queued stays due now');
  t.same(
    queue
      .claim(5000, 10)
      .map((r) => r.name)
      .sort(),
    ['apps', 'infra'],
  );
  queue.schedule(apps, 8000);
  t.equal(row(queue, apps)?.state, 'active', 'an active source is left alone (its completion decides)');
  t.end();
});

t.test('a resync pass brings a queued re-check forward, not a retry backoff', (t) => {
  const { queue } = fixture(t).open();
  queue.schedule(apps, 300_000);
  queue.enqueue(apps, 1000, null, true);
  t.match(row(queue, apps), { notBefore: 1000, attempts: 0 }, 'the re-check runs with the pass');
  t.same(
    queue.claim(1000, 10).map((r) => [r.name, r.viaResync]),
    [['apps', false]],
    'a re-check was asked for too: fresh reads, not the pass listings',
  );
  queue.complete(apps, 1100);
  queue.schedule(apps, 400_000);
  queue.enqueue(apps, 2000, null, true);
  t.equal(row(queue, apps)?.notBefore, 2000, 'the next re-check too');
  queue.claim(2000, 1);
  queue.fail(apps, 60_000, 'GitHub 502');
  queue.enqueue(apps, 3000, null, true);
  t.equal(row(queue, apps)?.notBefore, 60_000, 'a backoff after a failure is kept');
  t.end();
});

t.test('viaResync: only a row that nothing but the resync asked for reads the pass listings', (t) => {
  const { queue } = fixture(t).open();
  queue.enqueue(apps, 10, null, true);
  queue.enqueue(infra, 10, null, true);
  queue.enqueue(infra, 11, 11); // an event for a row the resync queued: fresh reads
  queue.enqueue(podinfo, 10, null, true);
  queue.schedule(podinfo, 5); // a re-check for it: fresh reads
  const claimed = queue.claim(100, 10);
  t.same(Object.fromEntries(claimed.map((r) => [r.name, r.viaResync])), { apps: true, infra: false, podinfo: false });
  queue.enqueue(apps, 120, null, true); // the next pass while apps runs: runs again after, still via resync
  queue.complete(apps, 130);
  t.same(
    queue.claim(200, 10).map((r) => [r.name, r.viaResync]),
    [['apps', true]],
  );
  queue.enqueue(apps, 210, 210); // an event while active, then a resync pass: the rerun reads fresh
  queue.enqueue(apps, 211, null, true);
  queue.complete(apps, 220);
  t.same(
    queue.claim(300, 10).map((r) => [r.name, r.viaResync]),
    [['apps', false]],
  );
  t.end();
});
