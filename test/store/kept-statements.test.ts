import t from 'tap';
import { runPragma } from '../../src/store/kept-statements.js';
import { openDatabase } from '../harness/database.js';

t.test('the bridge connection prepares each SQL text once and keeps the statement', (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const sql = 'SELECT state FROM queue WHERE kind = ?';
  const first = db.prepare(sql);
  t.equal(db.prepare(sql), first, 'the same statement object for the same text');
  t.not(db.prepare('SELECT 1'), first, 'another text, another statement');
  t.same(first.all('Kustomization'), [], 'a kept statement runs again with new parameters');
  t.same(db.prepare(sql).all('HelmRelease'), []);
  t.end();
});

t.test('pragmas run through kept statements: values read, settings applied', (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const version = runPragma(db, 'user_version');
  t.type(version, 'number');
  t.ok(Number(version) > 0, 'migrations recorded their count');
  t.equal(runPragma(db, `user_version = ${Number(version)}`), undefined, 'a setting pragma returns nothing');
  t.equal(runPragma(db, 'user_version'), version);
  t.equal(runPragma(db, 'busy_timeout'), 5000, 'openDatabase set the busy timeout');
  t.equal(db.prepare('PRAGMA user_version'), db.prepare('PRAGMA user_version'), 'kept, not prepared per call');
  t.end();
});
