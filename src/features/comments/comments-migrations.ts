/** Pull request comments' tables: the comments and the rows they list. Versions as shipped. */
import type { Migration } from '../../store/migrations.js';

export const COMMENTS_MIGRATIONS: readonly Migration[] = [
  // Pull request comments: one per (forge, repository, pull request, cluster), its id, a pending mark before the create
  // and the hash of the text last written; and the rows it lists, one per reported workload (environment, deployment name).
  {
    version: 12,
    sql: `CREATE TABLE pr_comments (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, pr INTEGER NOT NULL, cluster TEXT NOT NULL,
     comment_id INTEGER, pending INTEGER NOT NULL DEFAULT 0, body_hash TEXT,
     dirty INTEGER NOT NULL DEFAULT 1, skip_reason TEXT, written_at INTEGER, updated_at INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, pr, cluster)
   ) WITHOUT ROWID;
   CREATE TABLE pr_comment_rows (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, pr INTEGER NOT NULL, cluster TEXT NOT NULL,
     environment TEXT NOT NULL, deployment_name TEXT NOT NULL,
     sha TEXT NOT NULL, state TEXT NOT NULL, url TEXT, version TEXT, digest TEXT,
     why TEXT NOT NULL, updated_at INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, pr, cluster, environment, deployment_name)
   ) WITHOUT ROWID;
   CREATE INDEX pr_comment_rows_lineage ON pr_comment_rows (forge, owner, repo, environment, deployment_name);`,
  },
  // Pull request comments: the commit each row was checked at (its pull request's head, or on its branch),
  // and why it is not the pull request's (`refusal`): a refused row is left out of the comment, its reason in /state.
  {
    version: 15,
    sql: `ALTER TABLE pr_comment_rows ADD COLUMN checked_sha TEXT;
   ALTER TABLE pr_comment_rows ADD COLUMN refusal TEXT;`,
  },
];
