/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many ran. Append only: a migration that
 * has shipped is never edited (a database records how many it ran, not what they said).
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE queue (
     kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
     state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'active')),
     dirty INTEGER NOT NULL DEFAULT 0,
     attempts INTEGER NOT NULL DEFAULT 0,
     not_before INTEGER NOT NULL,
     enqueued_at INTEGER NOT NULL,
     first_event_at INTEGER,
     last_error TEXT,
     PRIMARY KEY (kind, namespace, name)
   ) WITHOUT ROWID;
   CREATE TABLE deployments (
     owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL, sha TEXT NOT NULL,
     deployment_name TEXT NOT NULL,
     deployment_id INTEGER,
     state TEXT,
     pending_state TEXT,
     source_kind TEXT NOT NULL, source_namespace TEXT NOT NULL, source_name TEXT NOT NULL,
     workload_kind TEXT NOT NULL, workload_namespace TEXT NOT NULL, workload_name TEXT NOT NULL,
     container TEXT NOT NULL, image TEXT NOT NULL,
     description TEXT,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
     PRIMARY KEY (owner, repo, environment, sha, deployment_name)
   );
   CREATE INDEX deployments_lineage ON deployments (owner, repo, environment, deployment_name);
   CREATE TABLE sources (
     kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
     phase TEXT, reason TEXT, message TEXT, revision TEXT,
     last_seen INTEGER NOT NULL, last_error TEXT,
     PRIMARY KEY (kind, namespace, name)
   ) WITHOUT ROWID;
   CREATE TABLE skips (
     source_kind TEXT NOT NULL, source_namespace TEXT NOT NULL, source_name TEXT NOT NULL,
     workload_kind TEXT NOT NULL, workload_namespace TEXT NOT NULL, workload_name TEXT NOT NULL,
     container TEXT NOT NULL, code TEXT NOT NULL, reason TEXT NOT NULL, since INTEGER NOT NULL, updated_at INTEGER NOT NULL,
     PRIMARY KEY (source_kind, source_namespace, source_name, workload_kind, workload_namespace, workload_name, container)
   ) WITHOUT ROWID;`,
  // Registry cache: labels by digest (per platform picked from an index), tag → digest with its check time.
  `CREATE TABLE image_labels (
     digest TEXT NOT NULL, platform TEXT NOT NULL,
     platform_digest TEXT, labels TEXT NOT NULL, stored_at INTEGER NOT NULL,
     PRIMARY KEY (digest, platform)
   ) WITHOUT ROWID;
   CREATE TABLE image_tags (
     reference TEXT PRIMARY KEY, digest TEXT NOT NULL, checked_at INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  // GitHub: App installation per repository owner (with its look-up time), and refusals not to repeat before retry_at.
  `CREATE TABLE github_installations (
     owner TEXT PRIMARY KEY, installation_id INTEGER NOT NULL, resolved_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE github_refusals (
     key TEXT PRIMARY KEY, code TEXT NOT NULL, reason TEXT NOT NULL, status INTEGER,
     since INTEGER NOT NULL, retry_at INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  // Cleanup: workloads seen missing (by source), since when and by how many consecutive reads.
  `CREATE TABLE absences (
     key TEXT PRIMARY KEY, first_missing_at INTEGER NOT NULL, confirmations INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  // Queue: whether a row came only from the resync (read through the per-pass listings) or from an event or re-check.
  `ALTER TABLE queue ADD COLUMN via_resync INTEGER NOT NULL DEFAULT 0;`,
  // Forgejo/Gitea: the forge is part of a deployment's key (the same owner/repo may live on both); a Forgejo row is one
  // commit-status context (no deployment id), named in `context`. Rebuilt because SQLite cannot change a primary key.
  `CREATE TABLE deployments_next (
     forge TEXT NOT NULL DEFAULT 'github',
     owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL, sha TEXT NOT NULL,
     deployment_name TEXT NOT NULL,
     deployment_id INTEGER,
     context TEXT,
     state TEXT,
     pending_state TEXT,
     source_kind TEXT NOT NULL, source_namespace TEXT NOT NULL, source_name TEXT NOT NULL,
     workload_kind TEXT NOT NULL, workload_namespace TEXT NOT NULL, workload_name TEXT NOT NULL,
     container TEXT NOT NULL, image TEXT NOT NULL,
     description TEXT,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, environment, sha, deployment_name)
   );
   INSERT INTO deployments_next (owner, repo, environment, sha, deployment_name, deployment_id, state, pending_state,
     source_kind, source_namespace, source_name, workload_kind, workload_namespace, workload_name, container, image,
     description, created_at, updated_at)
   SELECT owner, repo, environment, sha, deployment_name, deployment_id, state, pending_state,
     source_kind, source_namespace, source_name, workload_kind, workload_namespace, workload_name, container, image,
     description, created_at, updated_at FROM deployments;
   DROP TABLE deployments;
   ALTER TABLE deployments_next RENAME TO deployments;
   CREATE INDEX deployments_lineage ON deployments (forge, owner, repo, environment, deployment_name);
   CREATE INDEX deployments_context ON deployments (forge, owner, repo, sha, context) WHERE context IS NOT NULL;`,
  // Sources: since when their reconciles fail (cleared by one that goes through), for /metrics and its alert.
  `ALTER TABLE sources ADD COLUMN failing_since INTEGER;`,
  // One forge seam: refusals of every forge in one table with a `forge` column (the forge was in the key's prefix:
  // keys without one were the first forge's, GitHub's), every key led by its forge's name, and deployment states in
  // forge-neutral words (GitHub's `inactive` is `gone`, its `queued` is `pending`).
  `ALTER TABLE github_refusals RENAME TO forge_refusals;
   ALTER TABLE forge_refusals ADD COLUMN forge TEXT NOT NULL DEFAULT 'github';
   UPDATE forge_refusals SET forge = 'forgejo' WHERE key LIKE 'repo:forgejo:%' OR key LIKE 'deployment:forgejo|%';
   UPDATE forge_refusals SET key = 'repo:github:' || substr(key, 6) WHERE forge = 'github' AND key LIKE 'repo:%';
   UPDATE forge_refusals SET key = 'deployment:github|' || substr(key, 12) WHERE forge = 'github' AND key LIKE 'deployment:%';
   UPDATE deployments SET
     state = CASE state WHEN 'inactive' THEN 'gone' WHEN 'queued' THEN 'pending' ELSE state END,
     pending_state = CASE pending_state WHEN 'inactive' THEN 'gone' WHEN 'queued' THEN 'pending' ELSE pending_state END
   WHERE state IN ('inactive', 'queued') OR pending_state IN ('inactive', 'queued');`,
  // Transient (preview) environments a forge was reported into, per forge and repository: a restart between the
  // deploy and the cleanup still stops the environment of a closed preview.
  `CREATE TABLE transient_environments (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL, since INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, environment)
   ) WITHOUT ROWID;`,
  // Retention (issue 22): when a digest's labels were last read (pruned once unused for a while, retention.ts), and
  // indexes for the prune's scans (sources by age, deployments' history by lineage).
  `ALTER TABLE image_labels ADD COLUMN used_at INTEGER;
   UPDATE image_labels SET used_at = stored_at;
   CREATE INDEX deployments_settled ON deployments (state, updated_at);
   CREATE INDEX deployments_source ON deployments (source_kind, source_namespace, source_name);`,
  // The queue: the backoff step an event last cut short (not two steps in a row, queue-store.ts).
  `ALTER TABLE queue ADD COLUMN event_cut_step INTEGER;`,
  // Pull request comments: one per (forge, repository, pull request, cluster), its id, a pending mark before the create
  // and the hash of the text last written; and the rows it lists, one per reported workload (environment, deployment name).
  `CREATE TABLE pr_comments (
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
  // DORA (issue 26): each success and failure the bridge recorded, with when, kept apart from the deployments cache
  // (whose row per commit keeps only its latest state and time, and whose settled history goes after 14 days).
  // Not backfilled: the cache's timestamps are those of its last write, so the figures start at the upgrade.
  `CREATE TABLE deployment_outcomes (
     forge TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL,
     deployment_name TEXT NOT NULL, sha TEXT NOT NULL, started_at INTEGER NOT NULL,
     outcome TEXT NOT NULL CHECK (outcome IN ('success', 'failure')), at INTEGER NOT NULL
   );
   CREATE INDEX deployment_outcomes_environment ON deployment_outcomes (forge, owner, repo, environment, at);
   CREATE INDEX deployment_outcomes_at ON deployment_outcomes (at);`,
  // DORA lead time (issue 26): each counted commit's committer date, read once from its forge. `state`: `known` (the
  // date), `missing` (the forge does not hold it: never asked again) or `failed` (asked again from `next_at`). And what
  // each environment was last resolved as (the `production` annotation or name, a preview), on every forge, kept after a
  // preview ended: the figures count production environments and never previews.
  `CREATE TABLE commit_times (
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
  // Fleet (issue 33): a remote cluster's deployments are its own (`spoke`: the cluster of a Flux object with
  // spec.kubeConfig; '' for the bridge's own cluster, so every earlier row keeps its key). Rebuilt for the primary key.
  `CREATE TABLE deployments_next (
     forge TEXT NOT NULL DEFAULT 'github',
     owner TEXT NOT NULL, repo TEXT NOT NULL, environment TEXT NOT NULL, sha TEXT NOT NULL,
     deployment_name TEXT NOT NULL,
     spoke TEXT NOT NULL DEFAULT '',
     deployment_id INTEGER,
     context TEXT,
     state TEXT,
     pending_state TEXT,
     source_kind TEXT NOT NULL, source_namespace TEXT NOT NULL, source_name TEXT NOT NULL,
     workload_kind TEXT NOT NULL, workload_namespace TEXT NOT NULL, workload_name TEXT NOT NULL,
     container TEXT NOT NULL, image TEXT NOT NULL,
     description TEXT,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
     PRIMARY KEY (forge, owner, repo, environment, sha, deployment_name, spoke)
   );
   INSERT INTO deployments_next (forge, owner, repo, environment, sha, deployment_name, deployment_id, context, state,
     pending_state, source_kind, source_namespace, source_name, workload_kind, workload_namespace, workload_name, container,
     image, description, created_at, updated_at)
   SELECT forge, owner, repo, environment, sha, deployment_name, deployment_id, context, state,
     pending_state, source_kind, source_namespace, source_name, workload_kind, workload_namespace, workload_name, container,
     image, description, created_at, updated_at FROM deployments;
   DROP TABLE deployments;
   ALTER TABLE deployments_next RENAME TO deployments;
   CREATE INDEX deployments_lineage ON deployments (forge, owner, repo, environment, deployment_name, spoke);
   CREATE INDEX deployments_context ON deployments (forge, owner, repo, sha, context) WHERE context IS NOT NULL;
   CREATE INDEX deployments_settled ON deployments (state, updated_at);
   CREATE INDEX deployments_source ON deployments (source_kind, source_namespace, source_name);`,
];
