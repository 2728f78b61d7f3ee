import t, { type Test } from 'tap';
import { pino } from 'pino';
import type { MetricValueWithName } from 'prom-client';
import { WaitsForTurn } from '../../src/common/errors.js';
import { createMetrics } from '../../src/common/metrics.js';
import type { KubeReader } from '../../src/kube/kube-types.js';
import type { ReconcileOutcome } from '../../src/reconcile/reconcile-source.js';
import { WATCHED_RECHECK_MS } from '../../src/lifecycle/recheck-delay.js';
import { RecheckSchedule } from '../../src/runtime/recheck-schedule.js';
import { createSourceRunner, type SourceRunnerDeps } from '../../src/runtime/source-runner.js';
import type { QueueItem } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { openDatabase } from '../harness/database.js';

const T0 = Date.UTC(2025, 0, 1);
const item = (o: Partial<QueueItem> = {}): QueueItem => ({
  kind: 'Kustomization',
  namespace: 'flux-system',
  name: 'web',
  attempts: 0,
  firstEventAt: null,
  viaResync: false,
  ...o,
});
const outcome = (o: Partial<ReconcileOutcome> = {}): ReconcileOutcome => ({
  phase: null,
  published: 0,
  statusesSent: 0,
  skipped: 0,
  recheck: null,
  ...o,
});
const fresh = { name: 'fresh' } as unknown as KubeReader;
const pass = { name: 'pass' } as unknown as KubeReader;

function setup(t: Test, reconcile: SourceRunnerDeps['reconcile'], tracking?: SourceRunnerDeps['tracking']) {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const metrics = createMetrics();
  const sources = new SourceStore(db);
  const run = createSourceRunner({
    reconcile,
    readers: { fresh, pass },
    rechecks: new RecheckSchedule(15_000),
    ...(tracking ? { tracking } : {}),
    sources,
    metrics,
    log: pino({ level: 'silent' }),
    now: () => T0,
  });
  /** A sample of a metric: `series` is `<name>_count` or `<name>_sum` for a histogram. */
  const count = async (name: string, labels: Record<string, string>, series = name) =>
    (await metrics.registry.getSingleMetric(name)!.get()).values.find(
      (v) =>
        ((v as MetricValueWithName<string>).metricName ?? name) === series && Object.entries(labels).every(([k, x]) => v.labels[k] === x),
    )?.value ?? 0;
  return { run, sources, count };
}

t.test('a run reads fresh unless only the resync asked, and answers when to look again', async (t) => {
  const readers: unknown[] = [];
  const { run, count } = setup(t, (_item, kube) => {
    readers.push(kube);
    return Promise.resolve(outcome({ recheck: 'rollout' }));
  });
  t.equal(await run(item()), 5_000, 'rolling out: the first re-check');
  t.equal(await run(item({ viaResync: true })), 10_000, 'then backing off');
  t.same(readers, [fresh, pass]);
  t.equal(await count('gdb_reconciles_total', { outcome: 'ok' }), 2);
  t.equal(await count('gdb_reconcile_duration_seconds', {}, 'gdb_reconcile_duration_seconds_count'), 2, 'both timed');
});

t.test('the time from the first event to a status sent is observed only when a status was sent', async (t) => {
  const sent = [0, 2];
  const { run, count } = setup(t, () => Promise.resolve(outcome({ statusesSent: sent.shift() ?? 0 })));
  t.equal(await run(item({ firstEventAt: T0 - 3_000 })), undefined, 'nothing to re-check');
  t.equal(await run(item({ firstEventAt: T0 - 3_000 })), undefined);
  t.equal(await count('gdb_event_to_status_seconds', {}, 'gdb_event_to_status_seconds_count'), 1, 'the run that sent a status');
  t.equal(await count('gdb_event_to_status_seconds', {}, 'gdb_event_to_status_seconds_sum'), 3, 'three seconds after the event');
});

t.test('a failure is counted, kept on the source for /state, and rethrown for the worker', async (t) => {
  const { run, sources, count } = setup(t, () => Promise.reject(new Error('GitHub is down')));
  await t.rejects(run(item()), { message: 'GitHub is down' });
  t.match(sources.list(), [{ kind: 'Kustomization', namespace: 'flux-system', name: 'web', lastError: 'GitHub is down' }]);
  t.equal(await count('gdb_reconciles_total', { outcome: 'error' }), 1);
});

t.test('a run that only waits for its turn is counted as waiting, not as a failure, and leaves the last error as it was', async (t) => {
  const answers: Error[] = [
    new Error('GitHub is down'),
    new WaitsForTurn('the look-up before this create waits for the next batch', T0 + 2_000),
    new Error('creating the deployment', { cause: new WaitsForTurn('the write budget is spent', T0 + 60_000) }),
  ];
  const { run, sources, count } = setup(t, () => Promise.reject(answers.shift()!));
  await t.rejects(run(item()), { message: 'GitHub is down' });
  await t.rejects(run(item()), { name: 'WaitsForTurn' }, 'rethrown: the worker brings it back at its time');
  await t.rejects(run(item()), { message: 'creating the deployment' }, 'a turn waited for under a wrapping error');
  t.equal(await count('gdb_reconciles_total', { outcome: 'waiting' }), 2);
  t.equal(await count('gdb_reconciles_total', { outcome: 'error' }), 1, 'only the real failure');
  t.match(sources.list(), [{ name: 'web', lastError: 'GitHub is down' }], 'the failure before is still what /state shows');
});

t.test('with rollout tracking: the reconcile reads through it, and a held watch makes the re-check the safety net', async (t) => {
  const tracked = { name: 'tracked' } as unknown as KubeReader;
  const calls: string[] = [];
  let held = true;
  const tracking = {
    begin: (ref: QueueItem, base: KubeReader) => {
      calls.push(`begin ${ref.name} ${(base as unknown as { name: string }).name}`);
      return {
        reader: tracked,
        end: () => {
          calls.push('end');
          return held;
        },
      };
    },
  };
  const readers: unknown[] = [];
  const { run } = setup(
    t,
    (_item, kube) => {
      readers.push(kube);
      return Promise.resolve(outcome({ recheck: 'rollout' }));
    },
    tracking,
  );
  t.equal(await run(item({ viaResync: true })), WATCHED_RECHECK_MS, 'every rolling workload watched');
  held = false;
  t.equal(await run(item()), 10_000, 'a watch not held: the re-check schedule');
  t.same(readers, [tracked, tracked]);
  t.same(calls, ['begin web pass', 'end', 'begin web fresh', 'end'], 'tracking wraps the reader the run would use');
});

t.test('with rollout tracking: a failed reconcile changes nothing that is followed', async (t) => {
  let ended = 0;
  const tracking = { begin: (_ref: QueueItem, base: KubeReader) => ({ reader: base, end: () => ++ended > 0 }) };
  const { run } = setup(t, () => Promise.reject(new Error('Kubernetes is down')), tracking);
  await t.rejects(run(item()), { message: 'Kubernetes is down' });
  t.equal(ended, 0);
});
