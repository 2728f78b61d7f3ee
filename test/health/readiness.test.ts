import t from 'tap';
import { createReadiness, kubeSilenceMs, readinessOf, type ReadinessFacts } from '../../src/health/readiness.js';
import { openDatabase } from '../harness/database.js';

const T0 = Date.UTC(2025, 0, 1);
const facts = (o: Partial<ReadinessFacts> = {}): ReadinessFacts => ({
  now: T0,
  storage: undefined,
  writeLock: undefined,
  kube: { lastOk: T0 - 1_000, lastError: null },
  kubeSilenceMs: 60_000,
  forgeProblems: [],
  forgeOutages: [],
  skips: [],
  ...o,
});

t.test('ready, unready and degraded', (t) => {
  type Row = [name: string, facts: ReadinessFacts, reasons: string[], degraded: string[]];
  const rows: Row[] = [
    ['all answer', facts(), [], []],
    [
      'the database cannot be written',
      facts({ storage: 'database /data/bridge.db cannot be written' }),
      ['database /data/bridge.db cannot be written'],
      [],
    ],
    ['no write lock', facts({ writeLock: 'database is locked' }), ['database: database is locked'], []],
    [
      'Kubernetes never answered: degraded, still taking events',
      facts({ kube: { lastOk: null, lastError: null } }),
      [],
      ['Kubernetes API has not answered yet'],
    ],
    [
      'Kubernetes silent too long: degraded (said once), still taking events',
      facts({ kube: { lastOk: T0 - 60_001, lastError: 'connect ECONNREFUSED' } }),
      [],
      ['Kubernetes API has not answered recently: connect ECONNREFUSED'],
    ],
    [
      'Kubernetes failing within the silence allowed: degraded only',
      facts({ kube: { lastOk: T0 - 60_000, lastError: 'connect ECONNREFUSED' } }),
      [],
      ['Kubernetes API failing: connect ECONNREFUSED'],
    ],
    [
      'GitHub credentials rejected',
      facts({ forgeProblems: ['GitHub credentials rejected: 401 Bad credentials'] }),
      ['GitHub credentials rejected: 401 Bad credentials'],
      [],
    ],
    [
      'GitHub failing: degraded only',
      facts({ forgeOutages: ['GitHub failing since then: timed out'] }),
      [],
      ['GitHub failing since then: timed out'],
    ],
    [
      'a registry outage: degraded only',
      facts({ skips: [{ code: 'registry_unavailable', reason: 'ghcr.io is unreachable' }] }),
      [],
      ['registry failing for 1 workload container(s): ghcr.io is unreachable'],
    ],
  ];
  for (const [name, f, reasons, degraded] of rows) t.same(readinessOf(f), { ready: reasons.length === 0, reasons, degraded }, name);
  t.end();
});

t.test('the Kubernetes API may stay silent for two resync intervals, at least a minute', (t) => {
  t.equal(kubeSilenceMs(10_000), 60_000);
  t.equal(kubeSilenceMs(5 * 60_000), 10 * 60_000);
  t.end();
});

t.test('the check probes storage first, then takes a write lock', (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const order: string[] = [];
  let locked = false;
  const readiness = createReadiness({
    storage: {
      check: () => {
        order.push('storage');
        return undefined;
      },
    },
    db: {
      exec: (sql: string) => {
        order.push('lock');
        if (locked) throw new Error('database is locked');
        return db.exec(sql);
      },
    },
    kube: () => ({ lastOk: T0, lastError: null }),
    forges: [{ readinessProblem: () => undefined, outage: () => undefined }],
    skips: () => [],
    resyncIntervalMs: 60_000,
    now: () => T0,
  });
  t.same(readiness(), { ready: true, reasons: [], degraded: [] });
  t.same(order, ['storage', 'lock']);
  locked = true;
  t.same(readiness().reasons, ['database: database is locked']);
  t.end();
});
