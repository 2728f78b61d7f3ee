/**
 * Issue 32: long waits and clocks. A delay past Node's timer range (about 24.8 days) fired at once: RESYNC_INTERVAL=600h
 * listed every Flux object 1,200 times a second, a Retry-After of 3,000,000 s kept the idle bridge busy; and the write
 * budget's windows were on the wall clock, so a clock set back an hour held every write for that hour.
 */
import { pino } from 'pino';
import t from 'tap';
import { MAX_TIMER_MS, longTimeout } from '../../src/common/timers.js';
import { BudgetGate, BudgetDeferred } from '../../src/forges/github/budget-gate.js';
import { ForgeHealth, MAX_FORGE_WAIT_MS } from '../../src/forges/forge-health.js';
import { ForgeError } from '../../src/common/errors.js';
import type { KubeReader } from '../../src/kube/kube-types.js';
import { Resync } from '../../src/runtime/resync.js';
import { Worker } from '../../src/runtime/worker.js';
import { WriteSpacing } from '../../src/forges/github/write-spacing.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { openDatabase } from '../harness/database.js';

const log = pino({ level: 'silent' });
const DAY_MS = 86_400_000;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('longTimeout: past the timer range it waits; a short delay fires; clear() cancels; Infinity never', async (t) => {
  const fired: string[] = [];
  const long = longTimeout(() => fired.push('30 days'), 30 * DAY_MS);
  const past = longTimeout(() => fired.push('range + 1'), MAX_TIMER_MS + 1);
  const never = longTimeout(() => fired.push('Infinity'), Infinity);
  longTimeout(() => fired.push('5 ms'), 5, { ref: true });
  const cleared = longTimeout(() => fired.push('cleared'), 5);
  cleared.clear();
  await pause(60);
  t.same(fired, ['5 ms']);
  for (const timer of [long, past, never]) timer.clear();
});

t.test('RESYNC_INTERVAL=600h: one pass, not one every millisecond', async (t) => {
  let lists = 0;
  const kube = {
    listFluxObjects: () => {
      lists++;
      return Promise.resolve([]);
    },
  } as unknown as KubeReader;
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const resync = new Resync({
    kube,
    queue: new QueueStore(db),
    namespaces: [],
    intervalMs: 600 * 3_600_000,
    log,
    now: Date.now,
    trackedSources: () => [],
    onEnqueued: () => undefined,
  });
  resync.start();
  await pause(100);
  await resync.stop();
  t.equal(lists, 2, 'the first pass (Kustomizations and HelmReleases), then the wait');
});

t.test("a forge's Retry-After of 3,000,000 s: the source is due within the hour, and the idle worker sleeps", async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  const now = Date.now();
  let looks = 0;
  const nextDue = queue.nextDue.bind(queue);
  queue.nextDue = () => {
    looks++;
    return nextDue();
  };
  const worker = new Worker({
    queue,
    concurrency: 1,
    log,
    now: Date.now,
    run: () => Promise.reject(new ForgeError('Forgejo asked to wait (Retry-After)', undefined, { retryAt: now + 3_000_000_000 })),
  });
  t.teardown(() => worker.stop(100));
  queue.enqueue({ kind: 'Kustomization', namespace: 'apps', name: 'web' }, now);
  worker.start();
  await pause(50);
  const due = queue.nextDue();
  t.ok(due !== null && due <= Date.now() + MAX_FORGE_WAIT_MS, 'due again within the hour');
  const before = looks;
  await pause(100);
  t.ok(looks - before <= 1, `the worker looked at the queue ${looks - before} times in 100 ms`);
});

t.test('a rate-limit pause asked for 35 days is cut to an hour, and says so', (t) => {
  const now = 1_000_000;
  const health = new ForgeHealth({ auth: 'token', forge: 'GitLab', now: () => now });
  health.rateLimited({ kind: 'secondary', until: now + 3_000_000_000, reason: 'GitLab asked to wait (Retry-After)' });
  t.equal(health.pausedUntil('token'), now + MAX_FORGE_WAIT_MS);
  t.match(health.snapshot().pause?.reason, /asked until .+; waits at most an hour/);
  t.end();
});

t.test('the write budget on the monotonic clock: a wall clock set back an hour holds no write', async (t) => {
  const wall = { now: 10 * 3_600_000 };
  const mono = { now: 5_000 };
  const gate = new BudgetGate({
    forge: 'GitHub',
    windows: [{ count: 2, ms: 60_000 }],
    now: () => wall.now,
    monotonic: () => mono.now,
    sleep: (ms) => {
      mono.now += ms;
      wall.now += ms;
      return Promise.resolve();
    },
  });
  const turn = (key: string) => ({ key, class: 'production' as const, final: true });
  await gate.write('token', turn('a'));
  wall.now -= 3_600_000;
  mono.now += 61_000;
  wall.now += 61_000;
  await gate.write('token', turn('b'));
  await gate.write('token', turn('c'));
  const deferred = await gate.write('token', turn('d')).catch((e: unknown) => e);
  t.ok(deferred instanceof BudgetDeferred, 'the window still counts');
  // Its turn is told on the wall clock: within a minute of the wall clock's now, not an hour on.
  const retryAt = (deferred as BudgetDeferred).retryAt ?? NaN;
  t.ok(retryAt > wall.now && retryAt <= wall.now + 65_000, `retry in ${retryAt - wall.now} ms`);
});

t.test('GitHub write spacing: the wall clock set back an hour between two writes holds nothing', async (t) => {
  const spacing = new WriteSpacing(20);
  await spacing.schedule({}, () => 'first');
  const realNow = Date.now;
  Date.now = () => realNow() - 3_600_000;
  t.teardown(() => {
    Date.now = realNow;
  });
  const second = spacing.schedule({}, () => 'second');
  t.equal(await Promise.race([second, pause(1_000).then(() => 'still waiting after a second')]), 'second');
});
