import type { SourceRef } from '../flux/k8s-objects.js';
import { durably, type Db } from './database.js';

/** A queued Flux source as the worker sees it. */
export interface QueueItem extends SourceRef {
  attempts: number;
  firstEventAt: number | null;
  /** Only the resync asked for this run: it may read the resync pass's listings instead of fresh GETs. */
  viaResync: boolean;
}

/** A queue row with its retry state, as /state lists it. */
interface QueueListing extends SourceRef {
  state: string;
  attempts: number;
  notBefore: number;
  lastError: string | null;
}

interface Row {
  kind: SourceRef['kind'];
  namespace: string;
  name: string;
  attempts: number;
  first_event_at: number | null;
  via_resync: number;
}

/**
 * An event may cut a failing source's backoff short (Flux says something happened, so the dependency may be back),
 * but not two steps in a row: when the run an event started fails too, that backoff is waited in full. So a replayed
 * event (or a stream of them) cannot end every backoff: the waits still double, every other step.
 */
const EVENT_MAY_CUT = `excluded.first_event_at IS NOT NULL AND (event_cut_step IS NULL OR event_cut_step < attempts - 1)`;

/**
 * The durable work queue: one row per Flux source, so events coalesce. A source is `pending` or
 * `active`; an event for an active source marks it dirty and it runs once more after.
 */
export class QueueStore {
  private readonly upsert;
  private readonly due;
  private readonly activate;
  constructor(private readonly db: Db) {
    this.upsert = db.prepare(`
      INSERT INTO queue (kind, namespace, name, not_before, enqueued_at, first_event_at, via_resync)
      VALUES (@kind, @namespace, @name, @now, @now, @eventAt, @viaResync)
      ON CONFLICT (kind, namespace, name) DO UPDATE SET
        dirty = CASE WHEN state = 'active' THEN 1 ELSE dirty END,
        not_before = CASE WHEN state = 'pending' AND (attempts = 0 OR (${EVENT_MAY_CUT}))
          THEN MIN(not_before, excluded.not_before) ELSE not_before END,
        event_cut_step = CASE WHEN state = 'pending' AND attempts > 0 AND (${EVENT_MAY_CUT}) AND excluded.not_before < not_before
          THEN attempts ELSE event_cut_step END,
        via_resync = MIN(via_resync, excluded.via_resync),
        first_event_at = COALESCE(first_event_at, excluded.first_event_at)`);
    this.due = db.prepare(`SELECT kind, namespace, name, attempts, first_event_at, via_resync FROM queue
      WHERE state = 'pending' AND not_before <= ? ORDER BY not_before LIMIT ?`);
    this.activate = db.prepare(`UPDATE queue SET state = 'active', dirty = 0, first_event_at = NULL
      WHERE kind = ? AND namespace = ? AND name = ?`);
  }

  /**
   * Records a source durably, due now: a queued re-check is brought forward, a retry backoff is not.
   * `eventAt` marks a webhook event (for the event-to-status latency; an event also ends a retry backoff, once per
   * backoff step: Flux says something happened, so the dependency may be back), `viaResync` a row that only the resync
   * pass asked for (an event or re-check clears it).
   */
  enqueue(ref: SourceRef, now: number, eventAt: number | null = null, viaResync = false): void {
    this.upsert.run({ ...ref, now, eventAt, viaResync: viaResync ? 1 : 0 });
  }

  /** Records many sources in one durable transaction (one fsync): the webhook's group commit, behind its 202s. */
  enqueueMany(items: ReadonlyArray<{ ref: SourceRef; now: number; eventAt: number | null }>): void {
    durably(this.db, () => {
      for (const i of items) this.upsert.run({ ...i.ref, now: i.now, eventAt: i.eventAt, viaResync: 0 });
    });
  }

  /** Makes a source due at `at` (a re-check); an earlier due time already queued wins. */
  schedule(ref: SourceRef, at: number): void {
    this.db
      .prepare(
        `INSERT INTO queue (kind, namespace, name, not_before, enqueued_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (kind, namespace, name) DO UPDATE SET not_before = MIN(not_before, excluded.not_before), via_resync = 0
        WHERE state = 'pending'`,
      )
      .run(ref.kind, ref.namespace, ref.name, at, at);
  }

  /** Takes up to `limit` due sources and marks them active. */
  claim(now: number, limit: number): QueueItem[] {
    return this.db.transaction(() => {
      const rows = this.due.all(now, limit) as Row[];
      for (const r of rows) this.activate.run(r.kind, r.namespace, r.name);
      return rows.map((r) => ({
        kind: r.kind,
        namespace: r.namespace,
        name: r.name,
        attempts: r.attempts,
        firstEventAt: r.first_event_at,
        viaResync: r.via_resync === 1,
      }));
    })();
  }

  /** Done: drop the row, or make it pending again when an event arrived meanwhile. */
  complete(ref: SourceRef, now: number): void {
    const key = [ref.kind, ref.namespace, ref.name];
    this.db.transaction(() => {
      const del = this.db.prepare(`DELETE FROM queue WHERE kind = ? AND namespace = ? AND name = ? AND dirty = 0`).run(...key);
      if (del.changes === 0) {
        this.db
          .prepare(
            `UPDATE queue SET state = 'pending', dirty = 0, attempts = 0, event_cut_step = NULL, not_before = ?, last_error = NULL
          WHERE kind = ? AND namespace = ? AND name = ?`,
          )
          .run(now, ...key);
      }
    })();
  }

  /**
   * Failed: pending again after `retryAt`, with the error kept for /state. `counted` false: it only waited for its
   * turn (nothing failed), so its attempts (the backoff of a real failure) stay as they were.
   */
  fail(ref: SourceRef, retryAt: number, error: string, counted = true): void {
    this.db
      .prepare(
        `UPDATE queue SET state = 'pending', dirty = 0, attempts = attempts + ?, not_before = ?, last_error = ?
      WHERE kind = ? AND namespace = ? AND name = ?`,
      )
      .run(counted ? 1 : 0, retryAt, error, ref.kind, ref.namespace, ref.name);
  }

  /** After a crash, sources that were active are pending again. */
  recover(): number {
    return this.db.prepare(`UPDATE queue SET state = 'pending' WHERE state = 'active'`).run().changes;
  }

  /** When the earliest pending source becomes due, or null when none is pending. */
  nextDue(): number | null {
    const row = this.db.prepare(`SELECT MIN(not_before) AS t FROM queue WHERE state = 'pending'`).get() as { t: number | null };
    return row.t;
  }

  /** When the pending source due longest became due (at or before `now`), or null when none is due. */
  oldestDue(now: number): number | null {
    const row = this.db.prepare(`SELECT MIN(not_before) AS t FROM queue WHERE state = 'pending' AND not_before <= ?`).get(now) as {
      t: number | null;
    };
    return row.t;
  }

  counts(): { pending: number; active: number } {
    const row = this.db
      .prepare(
        `SELECT
      COALESCE(SUM(state = 'pending'), 0) AS pending, COALESCE(SUM(state = 'active'), 0) AS active FROM queue`,
      )
      .get() as { pending: number; active: number };
    return row;
  }

  /** Rows with their retry state, for /state. */
  list(limit = 200): QueueListing[] {
    return this.db
      .prepare(
        `SELECT kind, namespace, name, state, attempts, not_before AS notBefore, last_error AS lastError
      FROM queue ORDER BY not_before LIMIT ?`,
      )
      .all(limit) as QueueListing[];
  }
}
