/** GitLab's table: the transient (review app) environments it was reported into (store/transient-store.ts). Versions as shipped. */
import type { Migration } from '../../store/migrations.js';

export const GITLAB_MIGRATIONS: readonly Migration[] = [
  // Transient (preview) environments a forge was reported into, per forge and repository: a restart between the
  // deploy and the cleanup still stops the environment of a closed preview.
  {
    version: 9,
    sql: `CREATE TABLE transient_environments (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL, since INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, environment)
   ) WITHOUT ROWID;`,
  },
];
