import { groupBy, type DeploymentFact } from './dora.js';
import type { Db } from '../../store/database.js';
import { onOutcomeRecorded, type OutcomeRecorded } from '../../store/outcome-events.js';
import { OUTCOME_KIND_COLUMNS, OUTCOME_KIND_JOIN } from './environment-kinds.js';

/** One recorded outcome, as `deployment_outcomes` keeps it. */
interface OutcomeRaw {
  forge: string;
  owner: string;
  repo: string;
  environment: string;
  sha: string;
  started_at: number;
  outcome: 'success' | 'failure';
  at: number;
  transient: number;
  production: number;
  /** The commit's committer date, once read from its forge (commit_times). */
  committed_at?: number | null;
}

/**
 * Keeps each outcome the spine records in `db` (`store/outcome-events.ts`) in `deployment_outcomes`, in the transaction
 * that writes the row's new state, so the outcome and the state are one write. Subscribed once per database; returns it.
 */
export function keepOutcomes(db: Db): Db {
  if (keeping.has(db)) return db;
  keeping.add(db);
  onOutcomeRecorded(db, (e: OutcomeRecorded) => {
    db.prepare(
      `INSERT INTO deployment_outcomes (forge, owner, repo, environment, deployment_name, sha, started_at, outcome, at)
      VALUES (@forge, @owner, @repo, @environment, @deploymentName, @sha, @startedAt, @outcome, @at)`,
    ).run(e);
  });
  return db;
}

const keeping = new WeakSet<Db>();

/** What the reader narrows to: one repository (owner/repo, case-insensitive), outcomes from a time. */
export interface FactFilter {
  repository?: string;
  from?: number;
  /**
   * Only environments this counts (by name and kind), chosen in SQL: previews and uncounted environments are never
   * read into memory (with 500,000 outcomes, mostly previews, reading every one ran the bridge out of heap).
   */
  counted?: (environment: string, kind: { production: boolean; transient: boolean }) => boolean;
}

/**
 * Folds one environment's outcomes (oldest first) into deployments: consecutive outcomes of one commit (a failure
 * and the retry that succeeded; the same commit on several workloads) are one deployment, finished at its last
 * success and failed at its first failure; a commit that comes back after another (a rollback) is a new one,
 * started when it came back. Pure.
 */
export function foldOutcomes(rows: readonly OutcomeRaw[]): DeploymentFact[] {
  const facts: DeploymentFact[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const last = facts.at(-1);
    const same = last !== undefined && last.sha === r.sha;
    if (!same) {
      if (last !== undefined) last.superseded = true;
      const returning = seen.has(r.sha);
      seen.add(r.sha);
      facts.push({
        forge: r.forge,
        repository: `${r.owner}/${r.repo}`,
        environment: r.environment,
        sha: r.sha,
        // Until its forge was asked (features/dora/commit-times.ts), a lead time stays absent rather than guessed.
        commitAt: r.committed_at ?? null,
        startedAt: returning ? r.at : Math.min(r.started_at, r.at),
        succeededAt: null,
        failedAt: null,
        cluster: null,
        superseded: false,
        production: r.production === 1,
        transient: r.transient === 1,
      });
    }
    const fact = facts.at(-1);
    if (fact === undefined) continue;
    if (r.outcome === 'success') fact.succeededAt = Math.max(fact.succeededAt ?? r.at, r.at);
    else fact.failedAt ??= r.at;
  }
  return facts;
}

/** The DORA facts from the outcomes the bridge recorded (migration 13) and the commit times read (14): a reader, nothing written. */
export class DoraStore {
  /** What the running `facts` counts; read by the SQL function `gdb_dora_counted`. */
  private counted: FactFilter['counted'];

  constructor(private readonly db: Db) {
    db.function('gdb_dora_counted', { deterministic: true }, (environment, production, transient) =>
      this.counted === undefined || this.counted(String(environment), { production: production === 1, transient: transient === 1 }) ? 1 : 0,
    );
  }

  /** The deployments, per environment in order, from the outcomes recorded since `from` (all by default). */
  facts(filter: FactFilter = {}): DeploymentFact[] {
    this.counted = filter.counted;
    try {
      return this.read(filter);
    } finally {
      this.counted = undefined;
    }
  }

  private read(filter: FactFilter): DeploymentFact[] {
    const rows = this.db
      .prepare(
        // The kinds are named in the outer query: in the inner one, `transient` would be environment_kinds' column.
        `SELECT * FROM (SELECT o.forge, o.owner, o.repo, o.environment, o.sha, o.started_at, o.outcome, o.at, o.rowid AS seq,
          c.committed_at, ${OUTCOME_KIND_COLUMNS}
        FROM deployment_outcomes o ${OUTCOME_KIND_JOIN}
          LEFT JOIN commit_times c ON c.forge = o.forge AND c.owner = o.owner AND c.repo = o.repo AND c.sha = o.sha AND c.state = 'known'
        WHERE (@repository IS NULL OR lower(o.owner || '/' || o.repo) = lower(@repository)) AND o.at >= @from)
      WHERE gdb_dora_counted(environment, production, transient) = 1
      ORDER BY forge, owner, repo, environment, at, seq`,
      )
      .all({ repository: filter.repository ?? null, from: filter.from ?? 0 }) as OutcomeRaw[];
    return [...groupBy(rows, (r) => JSON.stringify([r.forge, r.owner, r.repo, r.environment])).values()].flatMap(foldOutcomes);
  }

  /** About how many outcomes are recorded now (`outcomeSpan` of `version()`). */
  outcomes(): number {
    return outcomeSpan(this.version());
  }

  /** What the figures are computed from now, cheaply (outcomes: the first and last rowid; known commit times; environment kinds): another value means something came or went. */
  version(): string {
    // Outcomes come and go; commit times and environment kinds arrive later and change the figures too.
    const r = this.db
      .prepare(
        // The first and last rowid, not a count: both are one look in the table's b-tree (COUNT(*) read all 500,000
        // rows, up to 100 ms on the event loop every look). Retention deletes the oldest, so the first rowid moves.
        // One MIN or MAX per SELECT: SQLite looks up only a lone one, both in one SELECT scan the table.
        `SELECT (SELECT COALESCE(MIN(rowid), 0) FROM deployment_outcomes) || ':' || (SELECT COALESCE(MAX(rowid), 0) FROM deployment_outcomes)
          || ' ' || (SELECT COUNT(*) || ':' || COALESCE(MAX(read_at), 0) FROM commit_times WHERE state = 'known')
          || ' ' || (SELECT COUNT(*) || ':' || COALESCE(MAX(seen_at), 0) FROM environment_kinds) AS v`,
      )
      .get() as { v: string };
    return r.v;
  }

  /** The first outcome recorded: the history is complete from then on (the upgrade, or a database lost and started anew). */
  since(): number | undefined {
    const r = this.db.prepare(`SELECT MIN(at) AS at FROM deployment_outcomes`).get() as { at: number | null };
    return r.at ?? undefined;
  }
}

/**
 * About how many outcomes a `version()` stands for: last rowid − first rowid + 1 (retention deletes the oldest, so
 * the rows between are all there but for the few an upsert replaced), 0 when none; a value of another shape: Infinity
 * (the caller then takes the careful path). Pure.
 */
export function outcomeSpan(version: string): number {
  const m = /^(\d+):(\d+)(?: |$)/.exec(version);
  if (!m) return Infinity;
  const [first, last] = [Number(m[1]), Number(m[2])];
  return last === 0 ? 0 : last - first + 1;
}
