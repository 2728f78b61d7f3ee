/**
 * Issue 35: the DORA figures' worker thread held 7–10 MiB of the bridge's memory from the first computation on,
 * also at idle, where there is nothing to count. A few thousand outcomes are now computed on the event loop (about
 * 3 µs each), the thread is started only past that, and ended once idle; the figures are the same either way.
 */
import { pino } from 'pino';
import t from 'tap';
import { createMetrics } from '../../../src/common/metrics.js';
import { doraWindow } from '../../../src/features/dora/dora-metrics.js';
import { doraFeature } from '../../../src/features/dora/dora-feature.js';
import { DoraStore } from '../../../src/features/dora/dora-store.js';
import { outcomeDatabase } from './outcome-database.js';

const H = 3_600_000;
const NOW = Date.UTC(2026, 11, 2);
const OUTCOMES = 300;

const { path: databasePath, db } = outcomeDatabase(t, {
  count: OUTCOMES,
  first: NOW - 100 * H,
  everyMs: 60_000,
  environments: ['production', 'staging'],
  repos: 7,
  failureEvery: 5,
});
const expected = doraWindow(new DoraStore(db), NOW, (e) => e === 'staging');

const wiring = (o: { onLoopMax?: number; threadIdleMs?: number }) =>
  doraFeature(
    { db, forges: [], metrics: createMetrics(), log: pino({ level: 'silent' }), now: () => NOW, dryRun: false, cluster: 'c', databasePath },
    { doraEnvironments: ['staging'] },
    o,
  );

/** Waits until `ok()` or fails after 60 s (a thread under the tests' TypeScript loader takes seconds to start on a loaded machine). */
async function until(ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 60_000; !ok(); await new Promise((r) => setTimeout(r, 10)))
    if (Date.now() > end) throw new Error('timed out');
}

t.test('few outcomes: computed on the loop, no thread started', async (t) => {
  const dora = wiring({});
  t.teardown(() => dora.stop?.());
  dora.start?.();
  await until(() => dora.figures.computedAt() !== undefined);
  t.same(dora.figures.figures(NOW), expected);
  t.same(dora.thread(), { started: 0, running: false });
});

t.test('more than the loop takes: computed in a thread, which is ended once idle and started again when asked', async (t) => {
  const dora = wiring({ onLoopMax: OUTCOMES - 1, threadIdleMs: 20 });
  t.teardown(() => dora.stop?.());
  dora.start?.();
  await until(() => dora.figures.computedAt() !== undefined);
  t.same(dora.figures.figures(NOW), expected, 'the same figures as on the loop');
  t.equal(dora.thread().started, 1);
  await until(() => !dora.thread().running);
  t.pass('the idle thread was ended');
});
