/**
 * What keeps one database to one healthy bridge (issue 22, item 7): an exclusive lock beside the file, so a
 * second process on the same volume (two pods of one RWO claim on a node, a careless `kubectl scale`) stops at
 * once with a clear message instead of sharing the queue; and an integrity check at start, so a corrupt page
 * is refused there, with the file left as it is, rather than answering 500s later while `/readyz` says 200.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db } from './database.js';
import { runPragma } from './kept-statements.js';

/** SQLite's word for a damaged file (one that is no database at all, SQLITE_NOTADB, is a plain open failure). */
const CORRUPT_CODES = /^SQLITE_CORRUPT/;

export function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && CORRUPT_CODES.test(code);
}

/** The start refused: another process holds the database's lock. */
export class DatabaseInUseError extends Error {
  constructor(readonly path: string) {
    super(
      `database ${path} is in use by another bridge process (it holds ${path}.lock): run one replica per database ` +
        '(docs/upgrade.md); the lock ends with that process, however it ends',
    );
    this.name = 'DatabaseInUseError';
  }
}

/** The start refused: the file fails SQLite's integrity check. */
export class DatabaseCorruptError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(
      `database ${path} is damaged (${problem}); the file is left as it is: restore the backup taken before the ` +
        'damage, or move the file aside to start with an empty cache (the bridge finds its deployments again)',
    );
    this.name = 'DatabaseCorruptError';
  }
}

/** The start refused: the lock file beside the database is not a lock file (the database itself is not at fault). */
export class LockFileBrokenError extends Error {
  constructor(path: string, reason: string) {
    super(
      `the lock file ${path}.lock of database ${path} is broken (${reason}): it holds no data; with no bridge running on ` +
        'this database, delete the lock file and start again',
    );
    this.name = 'LockFileBrokenError';
  }
}

/**
 * Takes the exclusive lock of `path`: a small SQLite file `<path>.lock` in exclusive locking mode, written once,
 * so its lock is held until the returned connection closes. The lock is the kernel's (POSIX advisory), so it ends
 * with the process, also on SIGKILL or a lost node: a stale lock never blocks the next start.
 */
export function lockDatabase(path: string): Db {
  mkdirSync(dirname(path), { recursive: true });
  const lock = new Database(`${path}.lock`, { timeout: 1_000 });
  try {
    runPragma(lock, 'locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL); DELETE FROM holder;');
    lock.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
    return lock;
  } catch (err) {
    lock.close();
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') throw new DatabaseInUseError(path);
    const code = (err as { code?: unknown }).code;
    if (isCorruption(err) || code === 'SQLITE_NOTADB') throw new LockFileBrokenError(path, `${(err as Error).message}, ${String(code)}`);
    throw err;
  }
}

/** Refuses a database that fails `PRAGMA quick_check` (every page read; indexes not cross-checked). */
export function checkIntegrity(db: Db, path: string): void {
  let problems: string[];
  try {
    problems = (db.prepare('PRAGMA quick_check').all() as Array<{ quick_check: string }>).map((r) => r.quick_check);
  } catch (err) {
    if (isCorruption(err)) throw new DatabaseCorruptError(path, (err as Error).message);
    throw err;
  }
  if (problems.length !== 1 || problems[0] !== 'ok') throw new DatabaseCorruptError(path, (problems[0] ?? 'no answer').slice(0, 200));
}
