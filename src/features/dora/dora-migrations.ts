/** DORA's tables: recorded outcomes, commit times, environment kinds. Versions as shipped. */
import type { Migration } from '../../store/migrations.js';

export const DORA_MIGRATIONS: readonly Migration[] = [
  // DORA (issue 26): each success and failure the bridge recorded, with when, kept apart from the deployments cache
  // (whose row per commit keeps only its latest state and time, and whose settled history goes after 14 days).
  // Not backfilled: the cache's timestamps are those of its last write, so the figures start at the upgrade.
  {
    version: 13,
    sql: `CREATE TABLE deployment_outcomes (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL,
     deployment_name TEXT NOT NULL, sha TEXT NOT NULL, started_at INTEGER NOT NULL,
     outcome TEXT NOT NULL CHECK (outcome IN ('success', 'failure')), at INTEGER NOT NULL
   );
   CREATE INDEX deployment_outcomes_environment ON deployment_outcomes (forge, owner, repo, environment, at);
   CREATE INDEX deployment_outcomes_at ON deployment_outcomes (at);`,
  },
  // DORA lead time (issue 26): each counted commit's committer date, read once from its forge. `state`: `known` (the
  // date), `missing` (the forge does not hold it: never asked again) or `failed` (asked again from `next_at`). And what
  // each environment was last resolved as (the `production` annotation or name, a preview), on every forge, kept after a
  // preview ended: the figures count production environments and never previews.
  {
    version: 14,
    sql: `CREATE TABLE commit_times (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, sha TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('known', 'missing', 'failed')), committed_at INTEGER,
     attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, reason TEXT, read_at INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, sha)
   ) WITHOUT ROWID;
   CREATE TABLE environment_kinds (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL,
     production INTEGER NOT NULL, transient INTEGER NOT NULL, seen_at INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, environment)
   ) WITHOUT ROWID;`,
  },
];
