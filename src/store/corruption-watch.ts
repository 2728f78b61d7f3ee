import type Database from 'better-sqlite3';

/**
 * Damage found while running (issue 22, item 7): any statement that fails with SQLITE_CORRUPT or SQLITE_NOTADB
 * (a page or the header overwritten after the start's integrity check) is told to the database's listeners, so
 * readiness reports it instead of `/readyz` answering 200 while `/state` answers 500.
 */
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB)/;

/** Whether `err` says the database file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB and their extended codes). */
export function isDamage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}

type Listener = (err: unknown) => void;
const listeners = new WeakMap<Database.Database, Listener[]>();

/** Calls `listener` with every damage error a statement of `db` throws (the error is still thrown to its caller). */
export function onDamage(db: Database.Database, listener: Listener): void {
  listeners.set(db, [...(listeners.get(db) ?? []), listener]);
}

/** Tells the listeners of `db` when `err` is damage; returns `err`, for `throw`. */
export function noteDamage(db: Database.Database, err: unknown): unknown {
  if (isDamage(err)) for (const l of listeners.get(db) ?? []) l(err);
  return err;
}

const RUNNERS = ['run', 'get', 'all', 'iterate'] as const;

/** Makes a statement's runners tell `db`'s listeners of damage (kept statements are wrapped once each). */
export function watchStatement(db: Database.Database, statement: Database.Statement): Database.Statement {
  const proto = Object.getPrototypeOf(statement) as object;
  for (const name of RUNNERS) {
    Object.defineProperty(statement, name, {
      // The prototype's runner looked up at each call, so whatever wraps the prototype (a test's spy) still sees it.
      value: (...args: unknown[]) => {
        try {
          return (Reflect.get(proto, name) as (...a: unknown[]) => unknown).apply(statement, args);
        } catch (err) {
          throw noteDamage(db, err);
        }
      },
    });
  }
  return statement;
}
