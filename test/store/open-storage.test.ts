import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { diagnoseDirectory, probeWrite } from '../../src/store/open-storage.js';
import { SCHEMA_MIGRATIONS, openStorage } from '../harness/database.js';

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-open-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('opens a new database (creating its directory) at the current schema', (t) => {
  const dir = tempDir(t);
  const db = openStorage(join(dir, 'sub', 'bridge.db'));
  t.equal(db.pragma('user_version', { simple: true }), SCHEMA_MIGRATIONS.length);
  db.close();
  t.same(readdirSync(dir), ['sub'], 'no probe file left behind');
  t.end();
});

t.test('the probe is a real commit another connection sees, and changes nothing', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'bridge.db');
  const db = openStorage(path);
  t.teardown(() => db.close());
  const other = new Database(path);
  t.teardown(() => other.close());
  const before = other.pragma('data_version', { simple: true });
  probeWrite(db);
  t.not(other.pragma('data_version', { simple: true }), before, 'committed');
  t.equal(other.pragma('user_version', { simple: true }), SCHEMA_MIGRATIONS.length, 'schema version unchanged');
  t.end();
});

t.test("a database that cannot be opened: one line naming the file and SQLite's error", (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'not-a-dir');
  writeFileSync(file, 'x');
  t.throws(() => openStorage(join(file, 'bridge.db')), {
    message: new RegExp(`^database ${file}/bridge\\.db cannot be opened for writing \\(.*E(NOTDIR|EXIST).*\\)$`),
  });
  const notDb = join(dir, 'garbage.db');
  writeFileSync(notDb, 'this is not a database, but it is long enough to have a header: '.repeat(4));
  t.throws(() => openStorage(notDb), { message: `database ${notDb} cannot be opened for writing (file is not a database, SQLITE_NOTADB)` });
  t.end();
});

t.test('a writable directory (or its nearest existing ancestor) has nothing to report', (t) => {
  const dir = tempDir(t);
  t.equal(diagnoseDirectory(dir), undefined);
  t.equal(diagnoseDirectory(join(dir, 'a', 'b')), undefined);
  t.notOk(existsSync(join(dir, '.github-deployment-bridge-write-probe')), 'the write probe is removed');
  t.notOk(existsSync(join(dir, 'a')), 'nothing created');
  t.end();
});
