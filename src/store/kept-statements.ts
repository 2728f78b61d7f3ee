import type Database from 'better-sqlite3';

/**
 * Makes a connection prepare each SQL text once and keep the statement for as long as the connection
 * lives. On Node 24, better-sqlite3 12 can abort the process (`Assertion failed: (env) != nullptr` in
 * `RemoveEnvironmentCleanupHook`, from `Statement::~Statement`) when the garbage collector finalises a
 * statement outside JavaScript; seen here at start-up and in tests. Kept statements never become
 * garbage while the connection is open, and the bridge's connection lives as long as the process.
 * The bridge's SQL texts are a small fixed set (a few vary with a bounded number of keys), so the cache is
 * bounded. Callers must not switch a shared statement's mode (`pluck`, `raw`, `expand`); none does.
 */
export function keepStatements(db: Database.Database): void {
  const kept = new Map<string, Database.Statement>();
  const prepare = db.prepare.bind(db);
  Object.defineProperty(db, 'prepare', {
    value: (sql: string): Database.Statement => {
      let statement = kept.get(sql);
      if (statement === undefined) {
        statement = prepare(sql);
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
