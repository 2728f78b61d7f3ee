import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { SchemaTooNewError } from '../../src/store/database.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { MAIN_JS } from '../harness/bridge-process.js';
import { SCHEMA_MIGRATIONS, openDatabase, openStorage } from '../harness/database.js';

const CURRENT = SCHEMA_MIGRATIONS.length;

/** A database as a newer bridge would leave it: one schema version ahead, with a table this bridge does not know. */
function newerDatabase(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  openDatabase(path).close();
  const db = new Database(path);
  db.exec(`CREATE TABLE from_the_future (x INTEGER); PRAGMA user_version = ${CURRENT + 1};`);
  db.close();
  return path;
}

/** The schema version and tables of a database file, read without the bridge. */
function inspect(path: string): { version: unknown; tables: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    return { version: db.pragma('user_version', { simple: true }), tables: tables.map((r) => r.name) };
  } finally {
    db.close();
  }
}

t.test('an older bridge refuses a newer database and leaves it as it was', (t) => {
  const path = newerDatabase(t);
  const before = inspect(path);
  const message = `database ${path} has schema version ${CURRENT + 1}, newer than this bridge knows (${CURRENT}): run the newer bridge again, or restore the backup taken before the upgrade (docs/upgrade.md)`;
  t.throws(() => openDatabase(path), new SchemaTooNewError(path, CURRENT + 1, CURRENT));
  t.throws(() => openStorage(path), { message }, 'not reported as a storage fault');
  t.same(inspect(path), before, 'version and tables untouched');
  t.equal(before.version, CURRENT + 1);
  t.end();
});

t.test('the process: one line naming the file and what to do, exit 1', async (t) => {
  const path = newerDatabase(t);
  const env = {
    PATH: process.env.PATH ?? '',
    WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes',
    GITHUB_TOKEN: 'ghp_x',
    CLUSTER_NAME: 'c',
    DATABASE_PATH: path,
  };
  const exit = await promisify(execFile)(process.execPath, [MAIN_JS], { env }).then(
    () => ({ code: 0, stderr: '' }),
    (err: unknown) => err as { code: number; stderr: string },
  );
  t.equal(exit.code, 1);
  t.equal(
    exit.stderr,
    `github-deployment-bridge: failed to start: database ${path} has schema version ${CURRENT + 1}, newer than this bridge knows (${CURRENT}): run the newer bridge again, or restore the backup taken before the upgrade (docs/upgrade.md)\n`,
  );
  t.equal(inspect(path).version, CURRENT + 1);
});

t.test('docs/upgrade.md: a row for this version, and the newest schema is this one', (t) => {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'upgrade.md'), 'utf8');
  const section = /^## Schema versions\n([\s\S]*?)^## /m.exec(page)?.[1] ?? '';
  const rows = [...section.matchAll(/^\| ([^|]+?) \| (\d+) \|/gm)].map((m) => ({ bridge: m[1], schema: Number(m[2]) }));
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  t.ok(
    rows.some((r) => r.bridge === version),
    `a row for package.json's version ${version}`,
  );
  t.equal(Math.max(...rows.map((r) => r.schema)), CURRENT, 'a migration was added: add its row (the next release) to the schema table');
  t.end();
});
