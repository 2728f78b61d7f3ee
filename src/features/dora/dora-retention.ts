/**
 * The DORA figures' retention, beside their tables' migrations: a recorded outcome is kept 90 days (the longest window
 * the figures are read over, with room to spare); a commit's time once no outcome of its commit is left (it is read
 * again only if the commit is deployed again); an environment's kind once none of its outcomes is left and it was not
 * published into for as long. Composed in `features/retention.ts`, whether or not the figures are turned on.
 */
import type { PruneStep } from '../../store/retention.js';

const DAY_MS = 24 * 60 * 60_000;

/** How long an outcome is kept, and an environment's kind without one since it was last published into. */
export const DORA_RETENTION = { outcomesMs: 90 * DAY_MS } as const;

/** In this order: commit times and environment kinds go by the outcomes left. */
export const DORA_PRUNE_STEPS = [
  {
    table: 'deployment_outcomes',
    prune: (db, now) => db.prepare(`DELETE FROM deployment_outcomes WHERE at < ?`).run(now - DORA_RETENTION.outcomesMs).changes,
  },
  {
    table: 'commit_times',
    prune: (db) =>
      db
        .prepare(
          `DELETE FROM commit_times AS c WHERE NOT EXISTS (SELECT 1 FROM deployment_outcomes o WHERE o.forge = c.forge
        AND o.owner = c.owner AND o.repo = c.repo AND o.sha = c.sha)`,
        )
        .run().changes,
  },
  {
    table: 'environment_kinds',
    prune: (db, now) =>
      db
        .prepare(
          `DELETE FROM environment_kinds AS k WHERE k.seen_at < ? AND NOT EXISTS (SELECT 1 FROM deployment_outcomes o
        WHERE o.forge = k.forge AND o.owner = k.owner AND o.repo = k.repo AND o.environment = k.environment)`,
        )
        .run(now - DORA_RETENTION.outcomesMs).changes,
  },
] as const satisfies readonly PruneStep[];
