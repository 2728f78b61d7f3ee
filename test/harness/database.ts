/**
 * The tests' way to open a database: with the bridge's whole schema (`features/schema.ts`), as the server does; and
 * to prune it with the features' steps (`features/retention.ts`), as the runtime does.
 */
import { FEATURE_PRUNE_STEPS } from '../../src/features/retention.js';
import { SCHEMA } from '../../src/features/schema.js';
import { openDatabase as openWith, type Db } from '../../src/store/database.js';
import { openStorage as openStorageWith } from '../../src/store/open-storage.js';
import { DEFAULT_RETENTION, pruneStorage as pruneWith } from '../../src/store/retention.js';

/** The schema's SQL, in order; a prefix of it is the schema of an older bridge (tests build such databases). */
export const SCHEMA_MIGRATIONS: readonly string[] = SCHEMA.map((m) => m.sql);

/** `store/database.ts`' openDatabase with the bridge's schema. */
export function openDatabase(path: string, o: { beforeMigrate?: (db: Db) => void } = {}): Db {
  return openWith(path, SCHEMA, o);
}

/** `store/open-storage.ts`' openStorage with the bridge's schema. */
export function openStorage(path: string): Db {
  return openStorageWith(path, SCHEMA);
}

/** `store/retention.ts`' pruneStorage with the features' steps. */
export function pruneStorage(db: Db, now: number, policy = DEFAULT_RETENTION) {
  return pruneWith(db, now, FEATURE_PRUNE_STEPS, policy);
}
