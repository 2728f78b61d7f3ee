import t from 'tap';
import { needsRecheck, RECHECK_INITIAL_MS, RECHECK_MAX_MS, recheckDelay } from '../../src/lifecycle/recheck-delay.js';
import type { Rollout } from '../../src/lifecycle/rollout.js';

t.test('recheckDelay: a few seconds, doubling, capped at a minute', (t) => {
  const rows: Array<[attempt: number, ms: number]> = [
    [0, 5_000],
    [1, 10_000],
    [2, 20_000],
    [3, 40_000],
    [4, 60_000],
    [5, 60_000],
    [50, 60_000],
    [10_000, 60_000],
    [-1, 5_000],
    [1.7, 10_000],
    [Number.NaN, 5_000],
    [Number.POSITIVE_INFINITY, 60_000],
  ];
  for (const [attempt, ms] of rows) t.equal(recheckDelay(attempt), ms, `attempt ${attempt}`);
  t.equal(RECHECK_INITIAL_MS, 5_000);
  t.equal(RECHECK_MAX_MS, 60_000);
  t.end();
});

t.test('recheckDelay never shrinks and stays within bounds', (t) => {
  let prev = 0;
  for (let a = 0; a < 100; a++) {
    const d = recheckDelay(a);
    if (d < prev || d < RECHECK_INITIAL_MS || d > RECHECK_MAX_MS) t.fail(`attempt ${a}: ${d} ms after ${prev} ms`);
    prev = d;
  }
  t.pass('monotonic and bounded over 100 attempts');
  t.end();
});

t.test('needsRecheck: while any workload is still rolling out', (t) => {
  const done: Rollout = { state: 'complete', description: 'rollout complete: 1 replica available' };
  const rolling: Rollout = { state: 'progressing', description: '1/3 replicas updated' };
  const failed: Rollout = { state: 'failed', description: 'progress deadline exceeded' };
  t.equal(needsRecheck([]), false, 'no workloads');
  t.equal(needsRecheck([done, done]), false, 'all complete');
  t.equal(needsRecheck([done, failed]), false, 'a failed rollout waits for the next change, not a re-check');
  t.equal(needsRecheck([done, rolling, failed]), true, 'one still rolling out');
  t.equal(needsRecheck(new Set([rolling])), true, 'any iterable');
  const paused: Rollout = { state: 'paused', description: 'paused: 1/3 replicas updated' };
  t.equal(needsRecheck([done, paused]), false, 'a paused Deployment moves only once resumed, which a watch sees');
  t.equal(needsRecheck([paused, rolling]), true, 'another one still rolling out');
  t.end();
});
