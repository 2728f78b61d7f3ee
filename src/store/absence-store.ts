import type { Absence } from '../lifecycle/absence.js';
import type { Db } from './database.js';

/**
 * Deployments whose workload was not found, and since when: cleanup waits for a grace period and a
 * second read before marking them inactive, and this survives restarts.
 */
export class AbsenceStore {
  constructor(private readonly db: Db) {}

  get(key: string): Absence | undefined {
    const r = this.db.prepare(`SELECT first_missing_at AS firstMissingAt, confirmations FROM absences WHERE key = ?`).get(key) as
      Absence | undefined;
    return r;
  }

  put(key: string, a: Absence): void {
    this.db
      .prepare(
        `INSERT INTO absences (key, first_missing_at, confirmations) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET first_missing_at = excluded.first_missing_at, confirmations = excluded.confirmations`,
      )
      .run(key, a.firstMissingAt, a.confirmations);
  }

  clear(key: string): void {
    this.db.prepare(`DELETE FROM absences WHERE key = ?`).run(key);
  }

  /** Forgets every absence whose key is not in `keep` and starts with `prefix` (seen again, or done). */
  retain(prefix: string, keep: ReadonlySet<string>): void {
    const rows = this.db.prepare(`SELECT key FROM absences WHERE key >= ? AND key < ?`).all(prefix, `${prefix}\uffff`) as Array<{
      key: string;
    }>;
    for (const { key } of rows) if (!keep.has(key)) this.clear(key);
  }
}
