import t from 'tap';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURE_MIGRATIONS, SCHEMA } from '../../src/features/schema.js';
import { DRIVERS } from '../../src/forges/registry.js';
import { openDatabase } from '../../src/store/database.js';
import { CORE_MIGRATIONS, composeSchema } from '../../src/store/migrations.js';
import { REPO_ROOT } from '../fixtures/locate.js';

/** The migrations as one positional list held them before each folder owned its own: the history, never rewritten. */
const HISTORY = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/schema-history.json'), 'utf8')) as string[];

t.test('the composed schema is the history: the same versions, the same SQL, in the same order', (t) => {
  t.same(
    SCHEMA.map((m) => m.version),
    HISTORY.map((_, i) => i + 1),
  );
  t.same(
    SCHEMA.map((m) => m.sql),
    HISTORY,
  );
  t.end();
});

t.test('a fresh database has the schema the history made', (t) => {
  const old = new Database(':memory:');
  for (const sql of HISTORY) old.exec(sql);
  const now = openDatabase(':memory:', SCHEMA);
  const master = (db: Database.Database) => db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all();
  t.same(master(now), master(old));
  t.equal(now.pragma('user_version', { simple: true }), HISTORY.length);
  t.end();
});

t.test('each migration has one owner: the store, a forge driver or a feature', (t) => {
  const owned = [CORE_MIGRATIONS, ...DRIVERS.map((d) => d.migrations ?? []), ...FEATURE_MIGRATIONS].flat();
  t.equal(owned.length, SCHEMA.length, 'none twice, none left out');
  t.same(
    DRIVERS.map((d) => [d.name, (d.migrations ?? []).map((m) => m.version)]),
    [
      ['github', [3]],
      ['forgejo', []],
      ['gitlab', []],
    ],
  );
  t.end();
});

t.test('composeSchema sorts by version and refuses a gap or a duplicate', (t) => {
  const m = (version: number) => ({ version, sql: `CREATE TABLE t${version} (x);` });
  const cases: Array<[string, number[][], number[] | RegExp]> = [
    ['sorted across lists', [[1, 3], [2], []], [1, 2, 3]],
    ['empty', [], []],
    ['a duplicate', [[1, 2], [2]], /migration version 2 is declared twice/],
    ['a gap', [[1, 3]], /migration version 2 is missing \(the next declared is 3\)/],
    ['not starting at 1', [[2]], /migration version 1 is missing/],
    ['not a positive integer', [[0, 1]], /migration version 0 is not a positive integer/],
  ];
  for (const [name, lists, want] of cases) {
    const run = () => composeSchema(...lists.map((l) => l.map(m)));
    if (want instanceof RegExp) t.throws(run, want, name);
    else
      t.same(
        run().map((x) => x.version),
        want,
        name,
      );
  }
  t.end();
});

t.test('openDatabase refuses a schema whose versions are not 1..N in order', (t) => {
  const [first, second] = SCHEMA;
  t.throws(() => openDatabase(':memory:', [second!, first!]), /schema: migration 1 is version 2/);
  t.end();
});
