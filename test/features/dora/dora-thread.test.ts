/**
 * Issue 32: with many recorded outcomes a computation of the DORA figures took seconds on the event loop, and a
 * `/metrics` scrape waited for it. Now it runs in a worker thread over its own read-only connection: while it runs,
 * a scrape answers (the last figures) and the loop keeps turning; the figures are the same as computed here.
 */
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DoraCache } from '../../../src/features/dora/dora-cache.js';
import { doraWindow } from '../../../src/features/dora/dora-metrics.js';
import { DoraThread } from '../../../src/features/dora/dora-thread.js';
import { DoraStore } from '../../../src/features/dora/dora-store.js';
import { SCHEMA_VERSION } from '../../../src/features/schema.js';
import { outcomeDatabase } from './outcome-database.js';

const H = 3_600_000;
const NOW = Date.UTC(2026, 11, 2);
const DEPLOYMENTS = 3_000;

const { dir, path, db } = outcomeDatabase(t, {
  count: DEPLOYMENTS,
  first: NOW - 600 * H,
  everyMs: 10_000,
  environments: ['production', 'staging', 'pr-1'],
  repos: 20,
  failureEvery: 10,
});
const include = (e: string) => e === 'staging';

/** Starts `cache` computing through `thread` at NOW (stopped at the test's end); the errors it hands on. */
function startOn(t: Test, cache: DoraCache, thread: DoraThread): unknown[] {
  const errors: unknown[] = [];
  cache.start(
    () => NOW,
    60_000,
    thread.compute,
    (e) => errors.push(e),
  );
  t.teardown(() => cache.stop());
  return errors;
}

t.test('computed in the thread: a scrape answers and the loop turns while it runs; the same figures', async (t) => {
  const thread = new DoraThread({ path, version: SCHEMA_VERSION, environments: ['staging'] });
  t.teardown(() => thread.stop());
  const cache = new DoraCache(new DoraStore(db), include);
  const errors = startOn(t, cache, thread);
  t.equal(cache.computing, true, 'a computation runs once started');
  t.same(cache.figures(NOW), [], 'a scrape meanwhile answers at once: no figures yet');
  t.equal(cache.computedAt(), undefined);
  let ticks = 0;
  while (cache.computing) {
    await new Promise((resolve) => setImmediate(resolve));
    ticks++;
  }
  t.ok(ticks > 0, `the event loop turned ${ticks} times during the computation`);
  t.same(errors, []);
  t.equal(cache.computedAt(), NOW);
  const figures = cache.figures(NOW);
  t.same(figures, doraWindow(new DoraStore(db), NOW, include), 'the figures of the same outcomes, computed here');
  t.same([...new Set(figures.map((f) => f.environment))].sort(), ['production', 'staging'], 'previews and uncounted ones left out');
});

t.test('a thread that cannot read the database: the error handed on, no figures, the bridge keeps running', async (t) => {
  const thread = new DoraThread({ path: join(dir, 'missing.db'), version: SCHEMA_VERSION, environments: [] });
  t.teardown(() => thread.stop());
  const cache = new DoraCache(new DoraStore(db));
  const errors = startOn(t, cache, thread);
  while (cache.computing) await new Promise((resolve) => setImmediate(resolve));
  t.equal(errors.length, 1);
  t.match(String(errors[0]), /missing\.db|unable to open|directory does not exist/i);
  t.same(cache.figures(NOW), []);
  t.equal(cache.computedAt(), undefined);
});

t.test('issue 35: the thread is ended once idle; a computation asked before then keeps it, one after starts another', async (t) => {
  const thread = new DoraThread({ path, version: SCHEMA_VERSION, environments: ['staging'] }, 200);
  t.teardown(() => thread.stop());
  const running = () => thread.running;
  const first = await thread.compute(NOW);
  t.equal(thread.running, true, 'still there right after answering');
  const second = await thread.compute(NOW);
  t.equal(thread.started, 1, 'asked again within the idle time: the same thread');
  t.same(second, first);
  while (running()) await new Promise((resolve) => setTimeout(resolve, 10));
  const third = await thread.compute(NOW);
  t.equal(thread.started, 2, 'asked after it ended: a new thread');
  t.same(third, first, 'the same figures');
  // Asked while an idle thread is being ended: the ending one's exit rejects nothing of the new one's.
  while (running()) await new Promise((resolve) => setTimeout(resolve, 1));
  t.same(await thread.compute(NOW), first);
});
