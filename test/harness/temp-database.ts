/** A bridge database in a folder of its own, for store tests: closed and removed when the test ends. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Db } from '../../src/store/database.js';
import { openDatabase } from './database.js';

export interface TempDatabase {
  path: string;
  /** The database open now. */
  db(): Db;
  /** Closes it and opens the same file again (a restart); the new handle. */
  reopen(): Db;
}

export function tempDatabase(t: Test, prefix = 'gdb-test-'): TempDatabase {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'bridge.db');
  let db = openDatabase(path);
  t.teardown(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    path,
    db: () => db,
    reopen: () => {
      db.close();
      db = openDatabase(path);
      return db;
    },
  };
}
