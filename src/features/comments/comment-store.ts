import type { CommentRow } from './comment-render.js';
import type { DeliveryState } from '../../lifecycle/status-plan.js';
import { durably, type Db } from '../../store/database.js';

/** One pull request comment's key: the forge, the repository, the pull request and the bridge's cluster. */
export interface CommentKey {
  forge: string;
  owner: string;
  repo: string;
  pr: number;
  cluster: string;
}

/** What the bridge knows of its comment on one pull request. */
export interface CommentEntry extends CommentKey {
  /** The forge's id of the comment, once created and recorded (null: none yet, or a create cut short: see `pending`). */
  commentId: number | null;
  /** Set before a create, cleared once its id is recorded: after a crash the comment is looked for before another is made. */
  pending: boolean;
  /** Hash of the text last written (null: none written). */
  bodyHash: string | null;
  /** A row changed since the last write (or skip). */
  dirty: boolean;
  /** Why nothing is written (the pull request is missing, locked, closed, or a permission is missing). */
  skipReason: string | null;
  /** When the comment was last written, epoch ms. */
  writtenAt: number | null;
}

/** A row as recorded: its pull request and why it belongs to it. */
export interface StoredRow extends CommentRow {
  key: CommentKey;
  why: string;
  /** Why its commit is not its pull request's (checked on the forge): the row is left out of the comment. */
  refusal?: string;
}

const KEY = 'forge = ? AND owner = ? AND repo = ? AND pr = ? AND cluster = ?';
const keyArgs = (k: CommentKey) => [k.forge, k.owner, k.repo, k.pr, k.cluster] as const;

interface EntryRow {
  forge: string;
  owner: string;
  repo: string;
  pr: number;
  cluster: string;
  comment_id: number | null;
  pending: number;
  body_hash: string | null;
  dirty: number;
  skip_reason: string | null;
  written_at: number | null;
}

interface RowRow {
  forge: string;
  owner: string;
  repo: string;
  pr: number;
  cluster: string;
  environment: string;
  deployment_name: string;
  sha: string;
  state: string;
  url: string | null;
  version: string | null;
  digest: string | null;
  why: string;
  updated_at: number;
  checked_sha: string | null;
  refusal: string | null;
}

const entryOf = (r: EntryRow): CommentEntry => ({
  forge: r.forge,
  owner: r.owner,
  repo: r.repo,
  pr: r.pr,
  cluster: r.cluster,
  commentId: r.comment_id,
  pending: r.pending === 1,
  bodyHash: r.body_hash,
  dirty: r.dirty === 1,
  skipReason: r.skip_reason,
  writtenAt: r.written_at,
});

const rowOf = (r: RowRow): StoredRow => ({
  key: { forge: r.forge, owner: r.owner, repo: r.repo, pr: r.pr, cluster: r.cluster },
  deploymentName: r.deployment_name,
  environment: r.environment,
  state: r.state as DeliveryState,
  ...(r.url === null ? {} : { url: r.url }),
  sha: r.sha,
  ...(r.version === null ? {} : { version: r.version }),
  ...(r.digest === null ? {} : { digest: r.digest }),
  why: r.why,
  updatedAt: r.updated_at,
  ...(r.checked_sha === r.sha && r.refusal !== null ? { refusal: r.refusal } : {}),
});

/** The pull request comments and the rows they list (`pr_comments`, `pr_comment_rows`). */
export class CommentStore {
  constructor(private readonly db: Db) {}

  /**
   * Records a workload's row of a pull request; true when it changed what the comment shows (its pull request's
   * comment is then due). The same row again changes nothing, not even its time.
   */
  putRow(key: CommentKey, row: Omit<CommentRow, 'updatedAt'>, why: string, now: number): boolean {
    const args = [...keyArgs(key), row.environment, row.deploymentName] as const;
    const before = this.db
      .prepare(`SELECT * FROM pr_comment_rows WHERE ${KEY} AND environment = ? AND deployment_name = ?`)
      .get(...args) as RowRow | undefined;
    const same =
      before !== undefined &&
      before.sha === row.sha &&
      before.state === row.state &&
      before.url === (row.url ?? null) &&
      before.version === (row.version ?? null) &&
      before.digest === (row.digest ?? null);
    if (same && before.why === why) return false;
    return this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO pr_comment_rows (forge, owner, repo, pr, cluster, environment, deployment_name, sha, state, url, version, digest, why, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (forge, owner, repo, pr, cluster, environment, deployment_name) DO UPDATE SET
             sha = excluded.sha, state = excluded.state, url = excluded.url, version = excluded.version,
             digest = excluded.digest, why = excluded.why, updated_at = excluded.updated_at`,
        )
        .run(...args, row.sha, row.state, row.url ?? null, row.version ?? null, row.digest ?? null, why, same ? before.updated_at : now);
      // A workload that moved to another pull request: its row on the one before ends there (that comment says so).
      const moved = this.db
        .prepare(
          `SELECT * FROM pr_comment_rows WHERE forge = ? AND owner = ? AND repo = ? AND cluster = ? AND environment = ?
             AND deployment_name = ? AND pr != ? AND state != 'gone'`,
        )
        .all(key.forge, key.owner, key.repo, key.cluster, row.environment, row.deploymentName, key.pr) as RowRow[];
      for (const m of moved) {
        const k = rowOf(m).key;
        this.db
          .prepare(`UPDATE pr_comment_rows SET state = 'gone', updated_at = ? WHERE ${KEY} AND environment = ? AND deployment_name = ?`)
          .run(now, ...keyArgs(k), row.environment, row.deploymentName);
        this.touch(k, now);
      }
      if (same) return moved.length > 0;
      this.touch(key, now);
      return true;
    })();
  }

  /** The commits of a comment's live rows not yet checked to be its pull request's (at their present commit). */
  uncheckedShas(key: CommentKey): string[] {
    return (
      this.db
        .prepare(
          `SELECT DISTINCT sha FROM pr_comment_rows WHERE ${KEY} AND state != 'gone' AND (checked_sha IS NULL OR checked_sha != sha)`,
        )
        .all(...keyArgs(key)) as Array<{ sha: string }>
    ).map((r) => r.sha);
  }

  /** What the forge said of a commit of the comment's rows: on the pull request (`refusal` null), or why not. */
  recordCheck(key: CommentKey, sha: string, refusal: string | null): void {
    this.db
      .prepare(`UPDATE pr_comment_rows SET checked_sha = sha, refusal = ? WHERE ${KEY} AND sha = ?`)
      .run(refusal, ...keyArgs(key), sha);
  }

  /**
   * Marks `gone` the rows of a lineage (forge, repository, environment, deployment name) at commit `sha` that are
   * not gone yet; returns the comments that became due.
   */
  markGone(
    l: { forge: string; owner: string; repo: string; environment: string; deploymentName: string; sha: string },
    now: number,
  ): CommentKey[] {
    return this.db.transaction(() => {
      const rows = this.db
        .prepare(
          `SELECT * FROM pr_comment_rows WHERE forge = ? AND owner = ? AND repo = ? AND environment = ? AND deployment_name = ?
             AND sha = ? AND state != 'gone'`,
        )
        .all(l.forge, l.owner, l.repo, l.environment, l.deploymentName, l.sha) as RowRow[];
      const keys = rows.map((r) => rowOf(r).key);
      for (const k of keys) {
        this.db
          .prepare(`UPDATE pr_comment_rows SET state = 'gone', updated_at = ? WHERE ${KEY} AND environment = ? AND deployment_name = ?`)
          .run(now, ...keyArgs(k), l.environment, l.deploymentName);
        this.touch(k, now);
      }
      return keys;
    })();
  }

  private touch(key: CommentKey, now: number): void {
    this.db
      .prepare(
        `INSERT INTO pr_comments (forge, owner, repo, pr, cluster, dirty, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?)
         ON CONFLICT (forge, owner, repo, pr, cluster) DO UPDATE SET dirty = 1, updated_at = excluded.updated_at`,
      )
      .run(...keyArgs(key), now);
  }

  /** The rows of one pull request's comment. */
  rows(key: CommentKey): StoredRow[] {
    return (this.db.prepare(`SELECT * FROM pr_comment_rows WHERE ${KEY}`).all(...keyArgs(key)) as RowRow[]).map(rowOf);
  }

  /** The row of a lineage (any cluster's), for /state and explain: which pull request it belongs to and why. */
  rowsOf(l: { forge: string; owner: string; repo: string; environment: string; deploymentName: string }): StoredRow[] {
    return (
      this.db
        .prepare(`SELECT * FROM pr_comment_rows WHERE forge = ? AND owner = ? AND repo = ? AND environment = ? AND deployment_name = ?`)
        .all(l.forge, l.owner, l.repo, l.environment, l.deploymentName) as RowRow[]
    ).map(rowOf);
  }

  get(key: CommentKey): CommentEntry | undefined {
    const r = this.db.prepare(`SELECT * FROM pr_comments WHERE ${KEY}`).get(...keyArgs(key)) as EntryRow | undefined;
    return r && entryOf(r);
  }

  /** Every comment whose rows changed since it was last written, or whose create was cut short. */
  due(): CommentEntry[] {
    return (this.db.prepare(`SELECT * FROM pr_comments WHERE dirty = 1 OR pending = 1`).all() as EntryRow[]).map(entryOf);
  }

  /** Every comment (tests), or the `limit` most lately changed (/state and the status page: a bounded list). */
  all(limit = -1): CommentEntry[] {
    const sql = `SELECT * FROM pr_comments ORDER BY ${limit < 0 ? 'forge, owner, repo, pr, cluster' : 'updated_at DESC, forge, owner, repo, pr'} LIMIT ?`;
    return (this.db.prepare(sql).all(limit) as EntryRow[]).map(entryOf);
  }

  /** How many comments the bridge keeps. */
  count(): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM pr_comments`).get() as { n: number }).n;
  }

  /** The pending mark, committed durably before the create is sent. */
  markPending(key: CommentKey): void {
    durably(this.db, () => this.db.prepare(`UPDATE pr_comments SET pending = 1 WHERE ${KEY}`).run(...keyArgs(key)));
  }

  /** The comment's id (created, or found after a crash); the pending mark cleared. */
  recordId(key: CommentKey, commentId: number | null): void {
    this.db.prepare(`UPDATE pr_comments SET comment_id = ?, pending = 0 WHERE ${KEY}`).run(commentId, ...keyArgs(key));
  }

  /**
   * The text `hash` is what the comment says now (written, or already so); `since` is when the rows were read:
   * a row that changed after it keeps the comment due.
   */
  written(key: CommentKey, hash: string, now: number, since: number): void {
    this.db
      .prepare(
        `UPDATE pr_comments SET body_hash = ?, written_at = ?, skip_reason = NULL, dirty = CASE WHEN updated_at > ? THEN 1 ELSE 0 END
         WHERE ${KEY}`,
      )
      .run(hash, now, since, ...keyArgs(key));
  }

  /** Nothing is written, for `reason`, until a row changes again. */
  skipped(key: CommentKey, reason: string): void {
    this.db.prepare(`UPDATE pr_comments SET skip_reason = ?, dirty = 0, pending = 0 WHERE ${KEY}`).run(reason, ...keyArgs(key));
  }
}
