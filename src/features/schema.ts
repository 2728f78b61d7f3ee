/**
 * The bridge's database schema, composed once from its owners' migrations: the store's core tables, each forge
 * driver's (`DRIVERS`) and each feature's. Every migration keeps the version it shipped as, so a database at version
 * N gets exactly N+1… whatever folder they live in now (`store/migrations.ts`). Here because this floor sees both
 * the forges and the features; the server, the commands and the DORA thread open the database with it.
 */
import { DRIVERS } from '../forges/registry.js';
import { CORE_MIGRATIONS, composeSchema, type Migration } from '../store/migrations.js';
import { COMMENTS_MIGRATIONS } from './comments/comments-migrations.js';
import { DORA_MIGRATIONS } from './dora/dora-migrations.js';

/** Each feature's tables (a new feature with tables adds its `<name>-migrations.ts` here). */
export const FEATURE_MIGRATIONS: ReadonlyArray<readonly Migration[]> = [COMMENTS_MIGRATIONS, DORA_MIGRATIONS];

/** Every migration, versions 1..N in order. */
export const SCHEMA: readonly Migration[] = composeSchema(
  CORE_MIGRATIONS,
  ...DRIVERS.map((d) => d.migrations ?? []),
  ...FEATURE_MIGRATIONS,
);

/** The schema version of this bridge: how many migrations it knows. */
export const SCHEMA_VERSION = SCHEMA.length;
