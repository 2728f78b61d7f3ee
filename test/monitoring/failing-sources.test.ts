/**
 * The per-source runner keeps when a source started failing: its first failed run in a row starts the
 * clock, a run that goes through stops it (gdb_flux_objects_failing, gdb_flux_objects_failing_longest_seconds and
 * their alert read it), across restarts since it lives in SQLite.
 */
import t from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../src/common/metrics.js';
import type { KubeReader } from '../../src/kube/kube-types.js';
import { RecheckSchedule } from '../../src/runtime/recheck-schedule.js';
import { createSourceRunner } from '../../src/runtime/source-runner.js';
import type { QueueItem } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { openDatabase } from '../harness/database.js';

const T0 = Date.UTC(2025, 0, 1);
const web: QueueItem = { kind: 'Kustomization', namespace: 'flux-system', name: 'web', attempts: 0, firstEventAt: null, viaResync: false };
const reader = {} as KubeReader;

t.test('failing from the first failed run in a row until one goes through', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const sources = new SourceStore(db);
  const clock = { now: T0 };
  const outcomes: Array<'fail' | 'ok'> = [];
  const run = createSourceRunner({
    reconcile: () => {
      if (outcomes.shift() === 'fail') return Promise.reject(new Error('GitHub answered 502'));
      return Promise.resolve({ phase: null, published: 0, statusesSent: 0, skipped: 0, recheck: null });
    },
    readers: { fresh: reader, pass: reader },
    rechecks: new RecheckSchedule(15_000),
    sources,
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: () => clock.now,
  });
  const attempt = async (outcome: 'fail' | 'ok', at: number) => {
    clock.now = at;
    outcomes.push(outcome);
    await run(web).catch(() => undefined);
  };

  await attempt('ok', T0);
  t.same(sources.failing(), { count: 0, since: null }, 'a run that went through: not failing');
  await attempt('fail', T0 + 1_000);
  await attempt('fail', T0 + 5_000);
  t.same(sources.failing(), { count: 1, since: T0 + 1_000 }, 'since the first failure, not the last');
  t.equal(sources.list()[0]?.lastError, 'GitHub answered 502', '/state keeps the error');
  await attempt('ok', T0 + 9_000);
  t.same(sources.failing(), { count: 0, since: null }, 'cleared by the run that went through');
  await attempt('fail', T0 + 20_000);
  t.same(sources.failing(), { count: 1, since: T0 + 20_000 }, 'a new run of failures starts again');
});

t.test('a run that went through stays ok when storage cannot record it', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const sources = new SourceStore(db);
  sources.recordError(web, 'old failure', T0);
  const failing = Object.assign(Object.create(sources) as SourceStore, {
    recordSuccess: () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    },
  });
  const run = createSourceRunner({
    reconcile: () => Promise.resolve({ phase: null, published: 0, statusesSent: 0, skipped: 0, recheck: null }),
    readers: { fresh: reader, pass: reader },
    rechecks: new RecheckSchedule(15_000),
    sources: failing,
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: () => T0 + 1_000,
  });
  await t.resolves(run(web), 'not turned into a failure');
  t.equal(sources.failing().count, 1, 'still marked failing: the next run that goes through clears it');
});
