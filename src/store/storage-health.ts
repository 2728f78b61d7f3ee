import { errorMessage } from '../common/errors.js';

/**
 * SQLite result codes (and their extended forms, e.g. SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED)
 * that mean the database file or its volume cannot be written now, rather than a bug in a statement.
 */
const STORAGE_CODES = [
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_BUSY',
  'SQLITE_PERM',
];

/** The SQLite code of a storage failure (disk full, read-only, I/O error, locked, corrupt), or undefined. */
export function storageErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return STORAGE_CODES.some((c) => code === c || code.startsWith(`${c}_`)) ? code : undefined;
}

/** What writers of the database tell the tracker (StorageHealth implements it). */
export interface StorageWrites {
  /** A write failed: the reason for a storage failure, undefined for anything else (the caller throws). */
  failed(operation: string, err: unknown): string | undefined;
  /** A write went through. */
  succeeded(): void;
}

/** A failing database, as /readyz, /state and the webhook's 503 name it. */
export interface StorageProblem {
  code: string;
  message: string;
  /** What the file system says (read-only, no space left), when it says something. */
  cause: string | undefined;
  operation: string;
  since: number;
  lastAt: number;
  failures: number;
}

export interface StorageHealthOptions {
  /** The database file, named in every reason. */
  path: string;
  /** A small durable write; throws while the database cannot be written. */
  probe: () => void;
  /** Why the database's directory cannot take writes (read-only, full), from the file system; see diagnoseDirectory. */
  diagnose: () => string | undefined;
  now: () => number;
  /** Each storage failure (metrics). */
  onFailure?: (code: string) => void;
  /** The file was found damaged while running (logs, metrics), with the reason readiness gives. */
  onDamage?: (reason: string) => void;
  /** Writable again after a failure, or failing after working (logs, metrics). */
  onChange?: (problem: StorageProblem | null, previous: StorageProblem | null) => void;
}

/**
 * Whether the database takes writes. Failed writes (webhook intake, queue updates) mark it failing; a
 * write that goes through, or the probe that readiness runs while it is failing, marks it working again.
 */
export class StorageHealth implements StorageWrites {
  private current: StorageProblem | null = null;
  /** Damage a statement found while running: it does not heal, so it holds until a restart checks the file again. */
  private damage: { message: string; code: string; since: number } | null = null;

  constructor(private readonly o: StorageHealthOptions) {}

  /**
   * A statement found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB; corruption-watch.ts). Not ready from now
   * until a restart, whose integrity check refuses the file (or passes a restored one). The first one is told.
   */
  damaged(err: unknown): void {
    if (this.damage !== null) return;
    const code = (err as { code?: unknown }).code;
    this.damage = { message: errorMessage(err), code: typeof code === 'string' ? code : 'SQLITE_CORRUPT', since: this.o.now() };
    this.o.onFailure?.(this.damage.code);
    this.o.onDamage?.(this.damageReason());
  }

  private damageReason(): string {
    const d = this.damage;
    return d === null
      ? ''
      : `database ${this.o.path} is damaged (${d.message}, ${d.code}) since ${new Date(d.since).toISOString()}: restore it from a backup or move it aside, then restart (an empty cache is safe: the bridge finds its deployments on the forges again)`;
  }

  /**
   * Records a failed write. Returns the reason (the caller answers 503 or retries later), or undefined
   * when the error is not a storage failure (a bug, left to the caller).
   */
  failed(operation: string, err: unknown): string | undefined {
    const code = storageErrorCode(err);
    if (code === undefined) return undefined;
    const now = this.o.now();
    const previous = this.current;
    const current: StorageProblem = {
      code,
      message: errorMessage(err),
      cause: this.o.diagnose(),
      operation,
      since: previous?.since ?? now,
      lastAt: now,
      failures: (previous?.failures ?? 0) + 1,
    };
    this.current = current;
    this.o.onFailure?.(code);
    if (previous === null) this.o.onChange?.(current, null);
    return this.describe(current);
  }

  /** A write went through: the database works (again). */
  succeeded(): void {
    if (this.current === null) return;
    const previous = this.current;
    this.current = null;
    this.o.onChange?.(null, previous);
  }

  /** For readiness: while failing, tries the probe write first; the reason it is still failing, or undefined. */
  check(): string | undefined {
    if (this.damage !== null) return this.damageReason();
    if (this.current === null) return undefined;
    try {
      this.o.probe();
    } catch (err) {
      return this.failed('probe', err) ?? `database ${this.o.path}: ${errorMessage(err)}`;
    }
    this.succeeded();
    return undefined;
  }

  /** One line: the file, what the file system says, SQLite's error and since when. */
  reason(): string | undefined {
    if (this.damage !== null) return this.damageReason();
    return this.current === null ? undefined : this.describe(this.current);
  }

  private describe(p: StorageProblem): string {
    return `database ${this.o.path} cannot be written${p.cause ? `: ${p.cause}` : ''} (${p.message}, ${p.code}) since ${new Date(p.since).toISOString()}`;
  }

  /** For /state. */
  snapshot(): {
    path: string;
    writable: boolean;
    /** Why the file is damaged (found while running), or null. */
    damaged: string | null;
    problem: (Omit<StorageProblem, 'since' | 'lastAt'> & { since: string; lastAt: string; reason: string }) | null;
  } {
    const p = this.current;
    return {
      path: this.o.path,
      writable: p === null,
      damaged: this.damage === null ? null : this.damageReason(),
      problem:
        p === null
          ? null
          : { ...p, since: new Date(p.since).toISOString(), lastAt: new Date(p.lastAt).toISOString(), reason: this.describe(p) },
    };
  }
}
