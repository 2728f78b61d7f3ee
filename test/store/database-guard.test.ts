/** One bridge per database, and a damaged file refused at start (issue 22, item 7). */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DatabaseCorruptError, DatabaseInUseError, LockFileBrokenError } from '../../src/store/database-guard.js';
import { closeStorage } from '../../src/store/open-storage.js';
import { startWorld } from '../harness/world.js';
import { SCHEMA_MIGRATIONS, openStorage } from '../harness/database.js';

function tempPath(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-guard-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'bridge.db');
}

t.test('a second open of a locked database is refused; closing releases the lock', (t) => {
  const path = tempPath(t);
  const first = openStorage(path);
  t.throws(() => openStorage(path), DatabaseInUseError, 'refused while the first holds it');
  t.throws(() => openStorage(path), /is in use by another bridge process/);
  closeStorage(first);
  const again = openStorage(path);
  t.ok(again.open, 'opens once the first is closed');
  closeStorage(again);
  t.end();
});

t.test('a damaged page in the middle is refused at start, and the file is left as it was', (t) => {
  const path = tempPath(t);
  const db = openStorage(path);
  const insert = db.prepare(`INSERT INTO queue (kind, namespace, name, not_before, enqueued_at) VALUES ('Kustomization', 'apps', ?, 0, 0)`);
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) insert.run(`app-${i}-${'x'.repeat(40)}`);
  })();
  closeStorage(db);
  const pageSize = 4096;
  const pages = readFileSync(path).length / pageSize;
  t.ok(pages > 20, `a database of ${pages} pages`);
  // Two pages in the middle overwritten, as a failing disk or a careless copy leaves them.
  const fd = openSync(path, 'r+');
  const mid = Math.floor(pages / 2);
  writeSync(fd, Buffer.alloc(2 * pageSize, 0xa5), 0, 2 * pageSize, mid * pageSize);
  closeSync(fd);
  const before = createHash('sha256').update(readFileSync(path)).digest('hex');
  t.throws(() => openStorage(path), DatabaseCorruptError);
  t.throws(() => openStorage(path), /is damaged \(.+\); the file is left as it is/);
  t.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), before, 'the file is unchanged');
  t.end();
});

t.test('two bridge processes on one file: the second exits with one line; a SIGKILLed holder leaves no lock', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const first = await world.bridge();
  const second = await world.bridge().then(
    () => undefined,
    (err: unknown) => String(err),
  );
  t.match(second, /database .*bridge\.db is in use by another bridge process/, 'the second refuses to start, naming the file');
  await first.kill('SIGKILL');
  const third = await world.bridge();
  t.equal((await third.readyz()).status, 200, 'a new bridge starts on the file the killed one held');
  t.equal(await third.kill('SIGTERM'), 0);
});

t.test('issue 32: a broken lock file is named as the lock file, not the database', (t) => {
  const path = tempPath(t);
  closeStorage(openStorage(path));
  writeFileSync(`${path}.lock`, 'x'.repeat(8192));
  const err = t.throws(() => openStorage(path), LockFileBrokenError);
  t.match((err as Error).message, `the lock file ${path}.lock of database ${path} is broken`);
  t.notMatch((err as Error).message, /is damaged/, 'the database is not blamed');
  t.end();
});

t.test('issue 32: a damaged database of an older schema is refused before any migration writes to it', (t) => {
  const path = tempPath(t);
  // The schema of the bridge before the last migration, with enough rows to damage a page in the middle.
  const old = new Database(path);
  for (const m of SCHEMA_MIGRATIONS.slice(0, -1)) old.exec(m);
  old.pragma(`user_version = ${SCHEMA_MIGRATIONS.length - 1}`);
  const insert = old.prepare(
    `INSERT INTO queue (kind, namespace, name, not_before, enqueued_at) VALUES ('Kustomization', 'apps', ?, 0, 0)`,
  );
  old.transaction(() => {
    for (let i = 0; i < 3000; i++) insert.run(`app-${i}-${'x'.repeat(40)}`);
  })();
  old.close();
  const pageSize = 4096;
  const pages = readFileSync(path).length / pageSize;
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(2 * pageSize, 0xa5), 0, 2 * pageSize, Math.floor(pages / 2) * pageSize);
  closeSync(fd);
  const before = createHash('sha256').update(readFileSync(path)).digest('hex');
  t.throws(() => openStorage(path), DatabaseCorruptError);
  t.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), before, 'not migrated: the file is unchanged');
  t.end();
});
