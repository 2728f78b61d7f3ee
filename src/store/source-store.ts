import type { SourceRef } from '../flux/k8s-objects.js';
import type { Db } from './database.js';

/** The last phase seen for a Flux source, for /state. */
export interface SourceStatus extends SourceRef {
  phase: string | null;
  reason: string | null;
  message: string | null;
  revision: string | null;
  lastSeen: number;
  lastError: string | null;
}

/** One workload container the bridge did not report, and why. */
export interface Skip {
  source: SourceRef;
  workload: { kind: string; namespace: string; name: string };
  container: string;
  /** Low-cardinality class of the reason, for metrics (`no_repository`, `registry_denied`, ...). */
  code: string;
  reason: string;
}

interface SkipRaw {
  source_kind: SourceRef['kind'];
  source_namespace: string;
  source_name: string;
  workload_kind: string;
  workload_namespace: string;
  workload_name: string;
  container: string;
  code: string;
  reason: string;
  since: number;
}

/** Flux sources as last read, and the skip reasons of their workloads. */
export class SourceStore {
  constructor(private readonly db: Db) {}

  record(s: Omit<SourceStatus, 'lastError'> & { lastError?: string | null }): void {
    this.db
      .prepare(
        `INSERT INTO sources (kind, namespace, name, phase, reason, message, revision, last_seen, last_error)
      VALUES (@kind, @namespace, @name, @phase, @reason, @message, @revision, @lastSeen, @lastError)
      ON CONFLICT (kind, namespace, name) DO UPDATE SET phase = excluded.phase, reason = excluded.reason,
        message = excluded.message, revision = excluded.revision, last_seen = excluded.last_seen, last_error = excluded.last_error`,
      )
      .run({ ...s, lastError: s.lastError ?? null });
  }

  /** Keeps the reconcile error of a source without touching its last phase; the first failure in a row starts `failing_since`. */
  recordError(ref: SourceRef, error: string, now: number): void {
    this.db
      .prepare(
        `INSERT INTO sources (kind, namespace, name, last_seen, last_error, failing_since) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (kind, namespace, name) DO UPDATE SET last_error = excluded.last_error,
        failing_since = COALESCE(failing_since, excluded.failing_since)`,
      )
      .run(ref.kind, ref.namespace, ref.name, now, error, now);
  }

  /** A reconcile of the source went through: it no longer fails (writes nothing when it did not). */
  recordSuccess(ref: SourceRef): void {
    this.db
      .prepare(`UPDATE sources SET failing_since = NULL WHERE kind = ? AND namespace = ? AND name = ? AND failing_since IS NOT NULL`)
      .run(ref.kind, ref.namespace, ref.name);
  }

  /** How many sources fail now, and since when the one failing longest does (null: none fails). */
  failing(): { count: number; since: number | null } {
    return this.db.prepare(`SELECT COUNT(failing_since) AS count, MIN(failing_since) AS since FROM sources`).get() as {
      count: number;
      since: number | null;
    };
  }

  /**
   * Forgets a source whose Flux object is gone and that left nothing to clean up: a signed event naming an
   * object that does not exist leaves no row behind (issue 22). Its skips go with it.
   */
  forget(ref: SourceRef): void {
    const key = [ref.kind, ref.namespace, ref.name];
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM skips WHERE source_kind = ? AND source_namespace = ? AND source_name = ?`).run(...key);
      this.db.prepare(`DELETE FROM sources WHERE kind = ? AND namespace = ? AND name = ?`).run(...key);
    })();
  }

  /** Newest first (the last read), so a flood of other names never hides the sources just seen. */
  list(limit = 500): SourceStatus[] {
    return this.db
      .prepare(
        `SELECT kind, namespace, name, phase, reason, message, revision, last_seen AS lastSeen, last_error AS lastError
      FROM sources ORDER BY last_seen DESC, kind, namespace, name LIMIT ?`,
      )
      .all(limit) as SourceStatus[];
  }

  /**
   * Replaces the skips of one source with `skips`; returns those whose reason is new or changed,
   * so each reason is logged once.
   */
  replaceSkips(source: SourceRef, skips: Skip[], now: number): Skip[] {
    const key = [source.kind, source.namespace, source.name];
    return this.db.transaction(() => {
      const before = new Map(
        (
          this.db
            .prepare(
              `SELECT workload_kind, workload_namespace, workload_name, container, reason, since FROM skips
          WHERE source_kind = ? AND source_namespace = ? AND source_name = ?`,
            )
            .all(...key) as Array<Record<string, string | number>>
        ).map((r) => [`${r.workload_kind}/${r.workload_namespace}/${r.workload_name}/${r.container}`, r]),
      );
      this.db.prepare(`DELETE FROM skips WHERE source_kind = ? AND source_namespace = ? AND source_name = ?`).run(...key);
      const insert = this.db.prepare(`INSERT OR REPLACE INTO skips VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      const fresh: Skip[] = [];
      for (const s of skips) {
        const old = before.get(`${s.workload.kind}/${s.workload.namespace}/${s.workload.name}/${s.container}`);
        const same = old?.reason === s.reason;
        if (!same) fresh.push(s);
        insert.run(
          ...key,
          s.workload.kind,
          s.workload.namespace,
          s.workload.name,
          s.container,
          s.code,
          s.reason,
          same ? old.since : now,
          now,
        );
      }
      return fresh;
    })();
  }

  /** How many workload containers are skipped now, by reason class. */
  skipCounts(): Array<{ code: string; count: number }> {
    return this.db.prepare(`SELECT code, COUNT(*) AS count FROM skips GROUP BY code`).all() as Array<{ code: string; count: number }>;
  }

  /** Newest first. */
  listSkips(limit = 500): Array<Skip & { since: number }> {
    return (
      this.db
        .prepare(`SELECT * FROM skips ORDER BY updated_at DESC, source_namespace, source_name, workload_name LIMIT ?`)
        .all(limit) as SkipRaw[]
    ).map((r) => ({
      source: { kind: r.source_kind, namespace: r.source_namespace, name: r.source_name },
      workload: { kind: r.workload_kind, namespace: r.workload_namespace, name: r.workload_name },
      container: r.container,
      code: r.code,
      reason: r.reason,
      since: r.since,
    }));
  }
}
