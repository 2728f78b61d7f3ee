import Database from 'better-sqlite3';
import t from 'tap';
import { StorageHealth, storageErrorCode, type StorageProblem } from '../../src/store/storage-health.js';

const sqlite = (code: string, message: string) => new Database.SqliteError(message, code);

t.test('storage failures are told from statement bugs by their SQLite code', (t) => {
  t.equal(storageErrorCode(sqlite('SQLITE_FULL', 'database or disk is full')), 'SQLITE_FULL');
  t.equal(storageErrorCode(sqlite('SQLITE_IOERR_WRITE', 'disk I/O error')), 'SQLITE_IOERR_WRITE');
  t.equal(storageErrorCode(sqlite('SQLITE_READONLY_DBMOVED', 'attempt to write a readonly database')), 'SQLITE_READONLY_DBMOVED');
  t.equal(storageErrorCode(sqlite('SQLITE_CANTOPEN', 'unable to open database file')), 'SQLITE_CANTOPEN');
  t.equal(
    storageErrorCode(sqlite('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed')),
    undefined,
    'a constraint is a bug, not storage',
  );
  t.equal(storageErrorCode(sqlite('SQLITE_FULLER', 'not a real code')), undefined, 'prefixes match whole words only');
  t.equal(storageErrorCode(new Error('boom')), undefined);
  t.equal(storageErrorCode(null), undefined);
  t.equal(storageErrorCode('SQLITE_FULL'), undefined);
  t.end();
});

function tracker(probe: () => void = () => undefined) {
  const clock = { now: Date.parse('2025-03-01T10:00:00Z') };
  const changes: Array<[StorageProblem | null, StorageProblem | null]> = [];
  const failures: string[] = [];
  let probes = 0;
  const health = new StorageHealth({
    path: '/data/bridge.db',
    now: () => clock.now,
    probe: () => {
      probes++;
      probe();
    },
    diagnose: () => '/data is on a read-only file system (EROFS)',
    onFailure: (code) => failures.push(code),
    onChange: (p, prev) => changes.push([p, prev]),
  });
  return { health, clock, changes, failures, probes: () => probes };
}

t.test("a failed write: one reason naming the file, the cause, SQLite's error and since when; one change per transition", (t) => {
  const { health, clock, changes, failures } = tracker();
  t.equal(health.reason(), undefined);
  t.same(health.snapshot(), { path: '/data/bridge.db', writable: true, damaged: null, problem: null });
  const reason = health.failed('record a webhook event', sqlite('SQLITE_IOERR_WRITE', 'disk I/O error'));
  t.equal(
    reason,
    'database /data/bridge.db cannot be written: /data is on a read-only file system (EROFS) (disk I/O error, SQLITE_IOERR_WRITE) since 2025-03-01T10:00:00.000Z',
  );
  clock.now += 5_000;
  health.failed('claim queued work', sqlite('SQLITE_IOERR_WRITE', 'disk I/O error'));
  t.same(failures, ['SQLITE_IOERR_WRITE', 'SQLITE_IOERR_WRITE']);
  t.equal(changes.length, 1, 'failing once, not per write');
  t.match(health.snapshot(), {
    writable: false,
    problem: {
      code: 'SQLITE_IOERR_WRITE',
      operation: 'claim queued work',
      failures: 2,
      since: '2025-03-01T10:00:00.000Z',
      lastAt: '2025-03-01T10:00:05.000Z',
      reason,
    },
  });
  t.equal(health.failed('x', new Error('a bug')), undefined, 'not a storage failure: left to the caller');
  t.equal(failures.length, 2);
  health.succeeded();
  health.succeeded();
  t.equal(changes.length, 2);
  t.match(changes[1], [null, { failures: 2 }]);
  t.equal(health.reason(), undefined);
  t.end();
});

t.test('readiness probes only while failing; the probe clears it or keeps it failing', (t) => {
  let broken = true;
  const { health, changes, probes } = tracker(() => {
    if (broken) throw sqlite('SQLITE_FULL', 'database or disk is full');
  });
  t.equal(health.check(), undefined);
  t.equal(probes(), 0, 'no write while it works');
  health.failed('record a webhook event', sqlite('SQLITE_FULL', 'database or disk is full'));
  t.match(health.check(), /^database \/data\/bridge\.db cannot be written: .* \(database or disk is full, SQLITE_FULL\) since /);
  t.equal(probes(), 1);
  t.match(health.snapshot().problem, { operation: 'probe', failures: 2 });
  broken = false;
  t.equal(health.check(), undefined, 'writable again');
  t.equal(probes(), 2);
  t.equal(changes.length, 2);
  t.equal(health.check(), undefined);
  t.equal(probes(), 2);
  t.end();
});
