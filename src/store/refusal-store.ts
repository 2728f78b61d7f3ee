import type { Refusal } from '../forges/github/refusal-classify.js';
import type { Db } from './database.js';

/** A refusal as kept: since when it holds (the same reason again keeps its first time). */
export interface StoredRefusal extends Refusal {
  since: number;
}

interface Raw {
  key: string;
  code: Refusal['code'];
  reason: string;
  status: number | null;
  since: number;
  retry_at: number;
}

const toRefusal = (r: Raw): StoredRefusal => ({
  key: r.key,
  code: r.code,
  reason: r.reason,
  status: r.status,
  since: r.since,
  retryAt: r.retry_at,
});

/** GitHub refusals (404, 403, 409, 422) and when each may be tried again; kept across restarts. */
export class RefusalStore {
  constructor(private readonly db: Db) {}

  /** The first of `keys` refused and not yet due for a retry. */
  active(keys: string[], now: number): StoredRefusal | undefined {
    const rows = this.db
      .prepare(`SELECT * FROM github_refusals WHERE key IN (${keys.map(() => '?').join(', ')}) AND retry_at > ?`)
      .all(...keys, now) as Raw[];
    const first = keys.map((k) => rows.find((r) => r.key === k)).find((r) => r !== undefined);
    return first && toRefusal(first);
  }

  record(r: Refusal, now: number): StoredRefusal {
    this.db
      .prepare(
        `INSERT INTO github_refusals (key, code, reason, status, since, retry_at) VALUES (@key, @code, @reason, @status, @now, @retryAt)
      ON CONFLICT (key) DO UPDATE SET code = excluded.code, status = excluded.status, retry_at = excluded.retry_at,
        since = CASE WHEN reason = excluded.reason THEN since ELSE excluded.since END, reason = excluded.reason`,
      )
      .run({ ...r, now });
    return toRefusal(this.db.prepare(`SELECT * FROM github_refusals WHERE key = ?`).get(r.key) as Raw);
  }

  /** The work went through: forget these refusals (a read first, so the usual case writes nothing). */
  clear(keys: string[]): void {
    const where = `key IN (${keys.map(() => '?').join(', ')})`;
    if (this.db.prepare(`SELECT 1 FROM github_refusals WHERE ${where} LIMIT 1`).get(...keys) === undefined) return;
    this.db.prepare(`DELETE FROM github_refusals WHERE ${where}`).run(...keys);
  }

  list(limit = 200): StoredRefusal[] {
    return (this.db.prepare(`SELECT * FROM github_refusals ORDER BY since DESC LIMIT ?`).all(limit) as Raw[]).map(toRefusal);
  }

  /** Refusals waiting for their retry, by class. */
  counts(now: number): Array<{ code: string; count: number }> {
    return this.db.prepare(`SELECT code, COUNT(*) AS count FROM github_refusals WHERE retry_at > ? GROUP BY code`).all(now) as Array<{
      code: string;
      count: number;
    }>;
  }
}
