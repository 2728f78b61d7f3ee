import { groupBy, type DeploymentFact } from '../lifecycle/dora.js';
import type { Db } from './database.js';

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
}

/**
 * Appends a success or failure that the deployments row (`where`, with `params`) did not show yet to
 * `deployment_outcomes`, with the row's first-seen time; anything else appends nothing. Run it in the
 * transaction that then writes the new state, so the outcome and the state are one write.
 */
export function appendOutcome(db: Db, where: string, params: Record<string, unknown>, state: string | null, now: number): void {
  if (state !== 'success' && state !== 'failure') return;
  db.prepare(
    `INSERT INTO deployment_outcomes (forge, owner, repo, environment, deployment_name, sha, started_at, outcome, at)
    SELECT forge, owner, repo, environment, deployment_name, sha, created_at, @outcome, @at FROM deployments
    WHERE ${where} AND state IS NOT @outcome`,
  ).run({ ...params, outcome: state, at: now });
}

/** What the reader narrows to: one repository (owner/repo, case-insensitive), outcomes from a time. */
export interface FactFilter {
  repository?: string;
  from?: number;
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
        // Commit times are not read from the forges yet: lead times stay absent rather than guessed.
        commitAt: null,
        startedAt: returning ? r.at : Math.min(r.started_at, r.at),
        succeededAt: null,
        failedAt: null,
        cluster: null,
        superseded: false,
        production: false,
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

/** The DORA facts from the outcomes the bridge recorded (migration 13): a reader, nothing written. */
export class DoraStore {
  constructor(private readonly db: Db) {}

  /** The deployments, per environment in order, from the outcomes recorded since `from` (all by default). */
  facts(filter: FactFilter = {}): DeploymentFact[] {
    const rows = this.db
      .prepare(
        `SELECT o.forge, o.owner, o.repo, o.environment, o.sha, o.started_at, o.outcome, o.at,
        EXISTS (SELECT 1 FROM transient_environments t WHERE t.forge = o.forge AND t.owner = o.owner AND t.repo = o.repo
          AND t.environment = o.environment) AS transient
      FROM deployment_outcomes o
      WHERE (@repository IS NULL OR lower(o.owner || '/' || o.repo) = lower(@repository)) AND o.at >= @from
      ORDER BY o.forge, o.owner, o.repo, o.environment, o.at, o.rowid`,
      )
      .all({ repository: filter.repository ?? null, from: filter.from ?? 0 }) as OutcomeRaw[];
    return [...groupBy(rows, (r) => JSON.stringify([r.forge, r.owner, r.repo, r.environment])).values()].flatMap(foldOutcomes);
  }

  /** What the outcomes are now, cheaply (the last rowid and the count): another value means rows came or went. */
  version(): string {
    const r = this.db.prepare(`SELECT COALESCE(MAX(rowid), 0) AS last, COUNT(*) AS rows FROM deployment_outcomes`).get() as {
      last: number;
      rows: number;
    };
    return `${r.last}:${r.rows}`;
  }

  /** The first outcome recorded: the history is complete from then on (the upgrade, or a database lost and started anew). */
  since(): number | undefined {
    const r = this.db.prepare(`SELECT MIN(at) AS at FROM deployment_outcomes`).get() as { at: number | null };
    return r.at ?? undefined;
  }
}
