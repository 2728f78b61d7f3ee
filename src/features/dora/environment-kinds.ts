import type { Db } from '../../store/database.js';
import type { EnvironmentKey } from '../../store/transient-store.js';

/** What an environment was resolved as: production (the annotation or the name), a preview (transient). */
export interface EnvironmentKind {
  production: boolean;
  transient: boolean;
}

/**
 * What each environment the bridge reported into was last resolved as, on every forge (migration 14), for the DORA
 * figures: they count production environments, also those only the `production` annotation makes so, and never a
 * preview, also after it ended. A write only when the kind changes: the usual publish reads a cache in memory.
 */
export class EnvironmentKinds {
  private readonly known = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** Notes the kind an environment was resolved as now. */
  note(k: EnvironmentKey, kind: EnvironmentKind): void {
    const key = JSON.stringify([k.forge, k.owner, k.repo, k.environment]);
    const value = `${Number(kind.production)}${Number(kind.transient)}`;
    if (this.known.get(key) === value) return;
    this.db
      .prepare(
        `INSERT INTO environment_kinds (forge, owner, repo, environment, production, transient, seen_at)
        VALUES (@forge, @owner, @repo, @environment, @production, @transient, @now)
        ON CONFLICT DO UPDATE SET production = excluded.production, transient = excluded.transient, seen_at = excluded.seen_at
        WHERE production != excluded.production OR transient != excluded.transient`,
      )
      .run({
        forge: k.forge,
        owner: k.owner,
        repo: k.repo,
        environment: k.environment,
        production: Number(kind.production),
        transient: Number(kind.transient),
        now: this.now(),
      });
    this.known.set(key, value);
  }
}

/** Joins an outcome (alias `o`) to its environment's kind, as `k`: with OUTCOME_KIND_COLUMNS. */
export const OUTCOME_KIND_JOIN = `LEFT JOIN environment_kinds k ON k.forge = o.forge AND k.owner = o.owner AND k.repo = o.repo
  AND k.environment = o.environment`;

/** An outcome's `production` and `transient` flags (0/1): its environment's kind, and GitLab's marks of previews. */
export const OUTCOME_KIND_COLUMNS = `COALESCE(k.production, 0) AS production, (COALESCE(k.transient, 0) OR EXISTS (SELECT 1
  FROM transient_environments t WHERE t.forge = o.forge AND t.owner = o.owner AND t.repo = o.repo
  AND t.environment = o.environment)) AS transient`;
