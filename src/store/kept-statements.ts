import type Database from 'better-sqlite3';
import { noteDamage, watchStatement } from './corruption-watch.js';

/**
 * Makes a connection prepare each SQL text once and keep the statement for as long as the connection
 * lives: the hot paths (queue, deployment rows) run the same few statements thousands of times. The
 * bridge's SQL texts are a small fixed set (a few vary with a bounded number of keys), so the cache is
 * bounded. Callers must not switch a shared statement's mode (`pluck`, `raw`, `expand`); none does.
 * (It began as the work-around for better-sqlite3 12 aborting Node 24 when the GC finalised a statement;
 * better-sqlite3 13 is not ObjectWrap-based and does not: RELIABILITY.md "A sound runtime".)
 */
export function keepStatements(db: Database.Database): void {
  const kept = new Map<string, Database.Statement>();
  const prepare = db.prepare.bind(db);
  Object.defineProperty(db, 'prepare', {
    value: (sql: string): Database.Statement => {
      let statement = kept.get(sql);
      if (statement === undefined) {
        // Damage found by any statement reaches readiness (corruption-watch.ts).
        try {
          statement = watchStatement(db, prepare(sql));
        } catch (err) {
          throw noteDamage(db, err);
        }
        kept.set(sql, statement);
      }
      return statement;
    },
  });
}

/** Runs a pragma through a kept statement (`db.pragma()` prepares a new one each call); returns its value, if any. */
export function runPragma(db: Database.Database, pragma: string): unknown {
  const statement = db.prepare(`PRAGMA ${pragma}`);
  if (!statement.reader) {
    statement.run();
    return undefined;
  }
  return statement.pluck(true).get();
}
