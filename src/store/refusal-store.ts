import type { Refusal } from '../lifecycle/refusal.js';
import type { Db } from './database.js';

/** A refusal as kept: since when it holds (the same reason again keeps its first time). */
export interface StoredRefusal extends Refusal {
  since: number;
}

interface Raw {
  forge: string;
  key: string;
  code: Refusal['code'];
  reason: string;
  status: number | null;
  since: number;
  retry_at: number;
}

const toRefusal = (r: Raw): StoredRefusal => ({
  forge: r.forge,
  key: r.key,
  code: r.code,
  reason: r.reason,
  status: r.status,
  since: r.since,
  retryAt: r.retry_at,
});

/** Every forge's refusals (answers such as 404, 403, 409, 422), by forge, and when each may be tried again; kept across restarts. */
export class RefusalStore {
  constructor(private readonly db: Db) {}

  /** The first of `keys` refused and not yet due for a retry. */
  active(keys: string[], now: number): StoredRefusal | undefined {
    const rows = this.db
      .prepare(`SELECT * FROM forge_refusals WHERE key IN (${keys.map(() => '?').join(', ')}) AND retry_at > ?`)
      .all(...keys, now) as Raw[];
    const first = keys.map((k) => rows.find((r) => r.key === k)).find((r) => r !== undefined);
    return first && toRefusal(first);
  }

  record(r: Refusal, now: number): StoredRefusal {
    this.db
      .prepare(
        `INSERT INTO forge_refusals (forge, key, code, reason, status, since, retry_at) VALUES (@forge, @key, @code, @reason, @status, @now, @retryAt)
      ON CONFLICT (key) DO UPDATE SET forge = excluded.forge, code = excluded.code, status = excluded.status, retry_at = excluded.retry_at,
        since = CASE WHEN reason = excluded.reason THEN since ELSE excluded.since END, reason = excluded.reason`,
      )
      .run({ ...r, now });
    return toRefusal(this.db.prepare(`SELECT * FROM forge_refusals WHERE key = ?`).get(r.key) as Raw);
  }

  /** The work went through: forget these refusals (a read first, so the usual case writes nothing). */
  clear(keys: string[]): void {
    const where = `key IN (${keys.map(() => '?').join(', ')})`;
    if (this.db.prepare(`SELECT 1 FROM forge_refusals WHERE ${where} LIMIT 1`).get(...keys) === undefined) return;
    this.db.prepare(`DELETE FROM forge_refusals WHERE ${where}`).run(...keys);
  }

  /** Newest first; of one forge when `forge` is given. */
  list(limit = 200, forge?: string): StoredRefusal[] {
    return (
      this.db
        .prepare(`SELECT * FROM forge_refusals WHERE (@forge IS NULL OR forge = @forge) ORDER BY since DESC LIMIT @limit`)
        .all({ limit, forge: forge ?? null }) as Raw[]
    ).map(toRefusal);
  }

  /** Refusals waiting for their retry, by forge and class. */
  counts(now: number): Array<{ forge: string; code: string; count: number }> {
    return this.db
      .prepare(`SELECT forge, code, COUNT(*) AS count FROM forge_refusals WHERE retry_at > ? GROUP BY forge, code`)
      .all(now) as Array<{ forge: string; code: string; count: number }>;
  }
}
