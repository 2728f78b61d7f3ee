import type { Db } from '../../store/database.js';
import { OUTCOME_KIND_COLUMNS, OUTCOME_KIND_JOIN } from './environment-kinds.js';

/** One commit on one forge. */
export interface CommitRef {
  forge: string;
  owner: string;
  repo: string;
  sha: string;
}

/** An environment that recorded successes, as the reader chooses the counted ones. */
export interface OutcomeEnvironment {
  forge: string;
  owner: string;
  repo: string;
  environment: string;
  transient: boolean;
  /** Production by the `production` annotation (a production name counts by itself). */
  production: boolean;
}

/** What the bridge knows of its commit times, for /state. */
export interface CommitTimeCounts {
  known: number;
  missing: number;
  failed: number;
}

/**
 * The committer dates of counted commits (migration 14), read once from their forge: a reader of
 * `deployment_outcomes` for what is still wanted, and the writer of what the forge answered.
 */
export class CommitTimeStore {
  constructor(private readonly db: Db) {}

  /** The rowid of the newest outcome (0 for none): the reader looks again only when it moved or a retry is due. */
  outcomesVersion(): number {
    return (this.db.prepare(`SELECT COALESCE(MAX(rowid), 0) AS v FROM deployment_outcomes`).get() as { v: number }).v;
  }

  /** The environments with a success recorded since `from`. */
  environments(from: number): OutcomeEnvironment[] {
    const rows = this.db
      .prepare(
        `SELECT DISTINCT o.forge, o.owner, o.repo, o.environment, ${OUTCOME_KIND_COLUMNS}
      FROM deployment_outcomes o ${OUTCOME_KIND_JOIN} WHERE o.outcome = 'success' AND o.at >= ?`,
      )
      .all(from) as (Omit<OutcomeEnvironment, 'transient' | 'production'> & { transient: number; production: number })[];
    return rows.map((r) => ({ ...r, transient: r.transient === 1, production: r.production === 1 }));
  }

  /** The commits of an environment's successes since `from` with no time yet, or whose failed read is due again; oldest first. */
  wanted(env: Omit<OutcomeEnvironment, 'transient' | 'production'>, from: number, now: number, limit: number): CommitRef[] {
    return this.db
      .prepare(
        `SELECT o.forge, o.owner, o.repo, o.sha FROM deployment_outcomes o
        LEFT JOIN commit_times c ON c.forge = o.forge AND c.owner = o.owner AND c.repo = o.repo AND c.sha = o.sha
      WHERE o.forge = @forge AND o.owner = @owner AND o.repo = @repo AND o.environment = @environment AND o.at >= @from
        AND o.outcome = 'success' AND (c.state IS NULL OR (c.state = 'failed' AND c.next_at <= @now))
      GROUP BY o.sha ORDER BY MIN(o.at) LIMIT @limit`,
      )
      .all({ ...env, from, now, limit }) as CommitRef[];
  }

  /** When the next failed read is due (null: none waits). */
  nextRetryAt(): number | null {
    return (this.db.prepare(`SELECT MIN(next_at) AS at FROM commit_times WHERE state = 'failed'`).get() as { at: number | null }).at;
  }

  /** The forge's answer: the committer date, or null when it does not hold the commit. */
  record(ref: CommitRef, committedAt: number | null, now: number): void {
    this.db
      .prepare(
        `INSERT INTO commit_times (forge, owner, repo, sha, state, committed_at, attempts, next_at, reason, read_at)
        VALUES (@forge, @owner, @repo, @sha, @state, @committedAt, 0, NULL, NULL, @now)
        ON CONFLICT DO UPDATE SET state = excluded.state, committed_at = excluded.committed_at, next_at = NULL, reason = NULL,
          read_at = excluded.read_at`,
      )
      .run({ ...ref, state: committedAt === null ? 'missing' : 'known', committedAt, now });
  }

  /** A read that failed: asked again from `nextAt`; the number of failed reads of this commit so far (this one included). */
  failed(ref: CommitRef, reason: string, nextAt: number, now: number): number {
    const row = this.db
      .prepare(
        `INSERT INTO commit_times (forge, owner, repo, sha, state, attempts, next_at, reason, read_at)
        VALUES (@forge, @owner, @repo, @sha, 'failed', 1, @nextAt, @reason, @now)
        ON CONFLICT DO UPDATE SET attempts = attempts + 1, next_at = excluded.next_at, reason = excluded.reason, read_at = excluded.read_at
        RETURNING attempts`,
      )
      .get({ ...ref, reason, nextAt, now }) as { attempts: number };
    return row.attempts;
  }

  /** The failed reads so far of a commit (0 when none failed). */
  attempts(ref: CommitRef): number {
    const r = this.db
      .prepare(`SELECT attempts FROM commit_times WHERE forge = @forge AND owner = @owner AND repo = @repo AND sha = @sha`)
      .get(ref) as { attempts: number } | undefined;
    return r?.attempts ?? 0;
  }

  counts(): CommitTimeCounts {
    const rows = this.db.prepare(`SELECT state, COUNT(*) AS n FROM commit_times GROUP BY state`).all() as { state: string; n: number }[];
    const n = (s: string) => rows.find((r) => r.state === s)?.n ?? 0;
    return { known: n('known'), missing: n('missing'), failed: n('failed') };
  }
}
