/**
 * A reconcile that only waits for its turn (its look-up queued for a batch, its write for the write budget) is not a
 * failed attempt: it comes back at its turn and a later real failure backs off from where real failures left it.
 * Counted, a first pass's queued look-ups followed by a GitHub outage put every new workload at the backoff's
 * 5-minute cap after the outage (test/reliability/outages.test.ts with GITHUB_BATCHED_LOOKUPS on).
 */
import t from 'tap';
import { pino } from 'pino';
import { QueueStore } from '../../src/store/queue-store.js';
import { RETRY_BASE_MS, Worker } from '../../src/runtime/worker.js';
import { ForgeError, waitsForTurn } from '../../src/common/errors.js';
import { RetryLater } from '../../src/reconcile/reconcile-source.js';
import { LookupQueued } from '../../src/forges/github/deployment-lookups.js';
import { BudgetDeferred } from '../../src/forges/github/budget-gate.js';
import { ForgePaused } from '../../src/forges/forge-health.js';
import { openDatabase } from '../harness/database.js';

const log = pino({ level: 'silent' });
const ref = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'web' };
const step = (cause: Error) => new RetryLater(`1 step(s) failed and will be retried: ${cause.message}`, { cause });

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!cond()) throw new Error('condition not reached');
}

t.test('waitsForTurn: a queued look-up and a deferred write wait for their turn; a pause or a failure does not', (t) => {
  const pause = { forge: 'GitHub', kind: 'secondary' as const, since: 0, until: 9_000, reason: 'secondary rate limit' };
  const rows: Array<[string, unknown, boolean]> = [
    ['a look-up queued for its batch', new LookupQueued(5_000), true],
    ['the same, wrapped by the reconcile', step(new LookupQueued(5_000)), true],
    ['a write deferred by the write budget', step(new BudgetDeferred('turn at …', 5_000)), true],
    ['a paused credential scope', step(new ForgePaused(pause)), false],
    ['an outage', step(new ForgeError('network error: connect ECONNREFUSED')), false],
    ['a 429 naming its time', step(new ForgeError('429', 429, { retryAt: 5_000 })), false],
    ['not an error', 'boom', false],
  ];
  for (const [name, err, want] of rows) t.equal(waitsForTurn(err), want, name);
  t.end();
});

t.test('ten queued look-ups, then an outage: attempts 1, the first backoff (≈2 s), not the 5-minute cap', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  let runs = 0;
  let failedAt = 0;
  const worker = new Worker({
    queue,
    concurrency: 1,
    log,
    now: Date.now,
    run: () => {
      runs += 1;
      if (runs <= 10) return Promise.reject(step(new LookupQueued(Date.now() + 5)));
      failedAt = Date.now();
      return Promise.reject(step(new ForgeError('list deployments of acme/web: network error: connect ECONNREFUSED')));
    },
  });
  t.teardown(() => worker.stop(100));
  queue.enqueue(ref, Date.now());
  worker.start();
  await until(() => runs === 11 && queue.list()[0]?.lastError?.includes('ECONNREFUSED') === true);
  const [row] = queue.list();
  t.equal(row?.attempts, 1, 'only the outage counted');
  const wait = (row?.notBefore ?? 0) - failedAt;
  t.ok(wait >= RETRY_BASE_MS * 0.75 - 50 && wait <= RETRY_BASE_MS * 1.25 + 50, `backs off ${wait} ms: the first step`);
});

t.test('a turn waited keeps the attempts real failures counted; /state still says why it waits', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  const at = Date.now() + 60_000;
  const worker = new Worker({ queue, concurrency: 1, log, now: Date.now, run: () => Promise.reject(step(new BudgetDeferred('turn', at))) });
  t.teardown(() => worker.stop(100));
  queue.enqueue(ref, Date.now());
  db.prepare('UPDATE queue SET attempts = 3').run();
  worker.start();
  await until(() => queue.list()[0]?.notBefore === at);
  t.match(queue.list(), [{ state: 'pending', attempts: 3, notBefore: at, lastError: /turn$/ }]);
});
