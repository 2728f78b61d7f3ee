import { accessSync, closeSync, constants, existsSync, openSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../common/errors.js';
import type { Metrics } from '../common/metrics.js';
import { SchemaTooNewError, durably, openDatabase, type Db } from './database.js';
import type { Migration } from './migrations.js';
import {
  DatabaseCorruptError,
  DatabaseInUseError,
  LockFileBrokenError,
  checkIntegrity,
  isCorruption,
  lockDatabase,
} from './database-guard.js';
import { StorageHealth } from './storage-health.js';
import { onDamage } from './corruption-watch.js';
import { runPragma } from './kept-statements.js';

/**
 * Why a directory (or its nearest existing ancestor) cannot take writes, as the file system says:
 * read-only, not writable by this process, no space or no inodes left. Undefined when it says nothing.
 */
export function diagnoseDirectory(dir: string): string | undefined {
  let d = dir;
  for (let i = 0; i < 64 && !existsSync(d) && dirname(d) !== d; i++) d = dirname(d);
  try {
    accessSync(d, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `${d} is on a read-only file system (EROFS)`;
    if (code === 'EACCES' || code === 'EPERM') return `${d} is not writable by this process (${code})`;
  }
  try {
    const s = statfsSync(d);
    if (s.bavail === 0) return `no space left on the file system of ${d} (ENOSPC)`;
    if (s.ffree === 0 && s.files > 0) return `no inodes left on the file system of ${d} (ENOSPC)`;
  } catch {
    // statfs unsupported: the write below still tells.
  }
  // access(2) may not know (ext4's emergency read-only after an error): try a one-byte file.
  const probe = join(d, '.github-deployment-bridge-write-probe');
  try {
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, 'x');
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `${d} is on a read-only file system (EROFS)`;
    if (code === 'ENOSPC' || code === 'EDQUOT') return `no space left on the file system of ${d} (${code})`;
    if (code === 'EIO') return `the file system of ${d} fails with I/O errors (EIO)`;
  }
  return undefined;
}

/** A small durable write: the schema version rewritten as it is (one page and an fsync, so a failing fsync shows too). */
export function probeWrite(db: Db): void {
  const version = Number(runPragma(db, 'user_version'));
  durably(db, () => runPragma(db, `user_version = ${version}`));
}

/** The lock of each database openStorage opened (database-guard.ts), released by closeStorage. */
const locks = new Map<Db, Db>();

/**
 * Opens the database and checks it takes a write. A read-only or full volume fails here, at start,
 * with one line naming the file, what the file system says and SQLite's error. Before that: the file's
 * exclusive lock (a second bridge on it stops here) and, once open, its integrity (a damaged file is refused
 * and left as it is). `schema`: every migration (`features/schema.ts`).
 */
export function openStorage(path: string, schema: readonly Migration[]): Db {
  let db: Db | undefined;
  let lock: Db | undefined;
  try {
    if (path !== ':memory:') lock = lockDatabase(path);
    // The integrity check before the migrations: a damaged file is left as it is, not migrated first.
    db = path === ':memory:' ? openDatabase(path, schema) : openDatabase(path, schema, { beforeMigrate: (d) => checkIntegrity(d, path) });
    if (path !== ':memory:') probeWrite(db);
    if (lock) locks.set(db, lock);
    return db;
  } catch (err) {
    for (const c of [db, lock]) {
      try {
        c?.close();
      } catch {
        /* already failing */
      }
    }
    // Not a storage fault: the file is fine, this bridge is too old for it; or it belongs to another process.
    if (
      err instanceof SchemaTooNewError ||
      err instanceof DatabaseInUseError ||
      err instanceof DatabaseCorruptError ||
      err instanceof LockFileBrokenError
    )
      throw err;
    if (isCorruption(err)) throw new DatabaseCorruptError(path, errorMessage(err));
    const cause = path === ':memory:' ? undefined : diagnoseDirectory(dirname(path));
    const code = (err as { code?: unknown }).code;
    throw new Error(
      `database ${path} cannot be opened for writing${cause ? `: ${cause}` : ''} (${errorMessage(err)}${typeof code === 'string' ? `, ${code}` : ''})`,
      { cause: err },
    );
  }
}

/** Closes a database from openStorage and releases its lock. */
export function closeStorage(db: Db): void {
  db.close();
  locks.get(db)?.close();
  locks.delete(db);
}

/** The bridge's storage tracker for an open database: probe, file-system diagnosis, metrics and logs wired. */
export function storageHealthFor(db: Db, path: string, o: { metrics: Metrics; log: Logger; now: () => number }): StorageHealth {
  o.metrics.storageWritable.set(1);
  const health = new StorageHealth({
    path,
    now: o.now,
    probe: () => probeWrite(db),
    diagnose: () => (path === ':memory:' ? undefined : diagnoseDirectory(dirname(path))),
    onFailure: (code) => o.metrics.storageErrors.inc({ code }),
    onChange: (problem, previous) => {
      o.metrics.storageWritable.set(problem === null ? 1 : 0);
      if (problem)
        o.log.error(
          { code: problem.code, err: problem.message, cause: problem.cause, operation: problem.operation },
          'database writes failing: not ready, webhook events answered 503',
        );
      else o.log.info({ failures: previous?.failures }, 'database writes work again');
    },
    onDamage: (reason) => {
      o.metrics.storageWritable.set(0);
      o.log.error({ reason }, 'database damaged: not ready until it is restored and the bridge restarted');
    },
  });
  // Any statement that finds the file damaged while running (corruption-watch.ts) makes it not ready.
  onDamage(db, (err) => health.damaged(err));
  return health;
}
