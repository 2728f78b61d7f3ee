import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { keepStatements, runPragma } from './kept-statements.js';
import type { Migration } from './migrations.js';

export type Db = Database.Database;

/**
 * Opens (creating if missing) the SQLite database and brings its schema up to date with `schema` (every migration,
 * versions 1..N: `features/schema.ts`); `beforeMigrate` (the start's integrity check) runs first, so a damaged file is
 * refused before anything (the journal mode, a migration) writes to it.
 */
export function openDatabase(path: string, schema: readonly Migration[], o: { beforeMigrate?: (db: Db) => void } = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  keepStatements(db);
  try {
    o.beforeMigrate?.(db);
  } catch (err) {
    db.close();
    throw err;
  }
  runPragma(db, 'journal_mode = WAL');
  // NORMAL in WAL mode: a commit is in the WAL (the OS's cache) when it returns, so it survives the process
  // being killed; only a power loss or OS crash may undo the newest commits, and since the WAL is replayed
  // as a prefix, never an older one without the newer. Commits that promise something to the outside
  // world (the queue row behind a 202, a status's pending mark before its POST) go through `durably`.
  runPragma(db, `synchronous = ${RELAXED}`);
  runPragma(db, 'busy_timeout = 5000');
  try {
    migrate(db, path, schema);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * Opens an existing database to read it, beside a running bridge (the commands that only read): nothing is
 * created or migrated, and a schema other than this bridge's is refused (a newer one may mean other things; an
 * older one lacks tables: the server's start migrates it). `version`: this bridge's schema version.
 */
export function openDatabaseReadOnly(path: string, version: number): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  runPragma(db, 'busy_timeout = 5000');
  const found = Number(runPragma(db, 'user_version'));
  if (found === version) return db;
  db.close();
  if (found > version) throw new SchemaTooNewError(path, found, version);
  throw new Error(
    `database ${path} has schema version ${found}, older than this bridge's (${version}): start this bridge's server on it first`,
  );
}

/**
 * A database written by a newer bridge: migrations only go forward, so an older bridge leaves it untouched and
 * refuses to start (docs/upgrade.md).
 */
export class SchemaTooNewError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `database ${path} has schema version ${found}, newer than this bridge knows (${known}): ` +
        'run the newer bridge again, or restore the backup taken before the upgrade (docs/upgrade.md)',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The connection's synchronous level between durable commits (see openDatabase). */
const RELAXED = 'NORMAL';

/**
 * Runs `write` in one transaction whose commit reaches the disk (an fsync of the WAL, `synchronous = FULL`)
 * before this returns, so it survives even a power loss, and with it every commit before it. For writes
 * that back a promise made outside: Flux's 202, a status about to be POSTed. Not inside a transaction
 * (SQLite cannot change the level there).
 */
export function durably<T>(db: Db, write: () => T): T {
  if (db.inTransaction) throw new Error('durably() inside a transaction: the outer commit decides durability');
  runPragma(db, 'synchronous = FULL');
  try {
    return db.transaction(write)();
  } finally {
    runPragma(db, `synchronous = ${RELAXED}`);
  }
}

function migrate(db: Db, path: string, schema: readonly Migration[]): void {
  schema.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`schema: migration ${i + 1} is version ${m.version} (compose it with composeSchema)`);
  });
  const current = Number(runPragma(db, 'user_version'));
  if (current > schema.length) throw new SchemaTooNewError(path, current, schema.length);
  for (const migration of schema.slice(current)) {
    db.transaction(() => {
      db.exec(migration.sql);
      runPragma(db, `user_version = ${migration.version}`);
    })();
  }
}
