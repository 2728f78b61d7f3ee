import { ACTIVE_STATES } from '../lifecycle/status-plan.js';
import type { Db } from './database.js';

/**
 * How long rows without a purpose are kept. Each folder prunes the tables it owns, as it owns their migrations: the
 * core tables here, a feature's in its `features/<name>/<name>-retention.ts` (`PruneStep`s, composed once in
 * `features/retention.ts` and passed to `pruneStorage`). The core tables' reasons:
 * - a source whose Flux object is gone and that has nothing left to clean up is kept a day (/state shows it went);
 * - a registry answer nobody read for 14 days: a digest's labels, a tag's digest (a tag in use is checked every few minutes);
 * - a refusal a day past its retry time (the retry has long happened, or nothing asked again);
 * - a deployment's settled history (gone; a failure a newer commit of the workload replaced) 14 days, and at most
 *   20 rows per lineage whatever their age: lineage() reads those on every publish, and none of them is superseded again.
 */
export interface RetentionPolicy {
  deletedSourceMs: number;
  unusedImageMs: number;
  refusalPastRetryMs: number;
  historyMs: number;
  historyPerLineage: number;
}

const DAY_MS = 24 * 60 * 60_000;

export const DEFAULT_RETENTION: RetentionPolicy = {
  deletedSourceMs: DAY_MS,
  unusedImageMs: 14 * DAY_MS,
  refusalPastRetryMs: DAY_MS,
  historyMs: 14 * DAY_MS,
  historyPerLineage: 20,
};

/** The core tables, pruned here in this order before any step. */
const CORE_TABLES = ['sources', 'skips', 'image_labels', 'image_tags', 'forge_refusals', 'deployments'] as const;
type CoreTable = (typeof CORE_TABLES)[number];

/**
 * One prune of a table, declared by the folder that owns the table (beside its migrations): it deletes the rows of
 * `table` that have no purpose at `now` (by its folder's own policy) and returns how many. Steps run after the core
 * tables', in their composed order, in the same transaction: a step may rely on the deletes before it.
 */
export interface PruneStep<T extends string = string> {
  readonly table: T;
  readonly prune: (db: Db, now: number) => number;
}

/** Rows one prune removed, by table: the core tables, then each step's, in the order they ran. */
export type Pruned<T extends string = string> = Readonly<Record<CoreTable | T, number>>;

/**
 * The owners' prune steps as one list, in the order given (an owner's own steps in its order): each table pruned by
 * one step, and never a core table (this module prunes those), or a clear error.
 */
export function composeRetention<T extends string>(...lists: ReadonlyArray<readonly PruneStep<T>[]>): readonly PruneStep<T>[] {
  const all = lists.flat();
  const seen = new Set<string>();
  for (const { table } of all) {
    if ((CORE_TABLES as readonly string[]).includes(table)) throw new Error(`retention: ${table} is a core table, pruned by the store`);
    if (seen.has(table)) throw new Error(`retention: ${table} is pruned by two steps`);
    seen.add(table);
  }
  return all;
}

const ACTIVE_SQL = `(${ACTIVE_STATES.map((s) => `'${s}'`).join(', ')})`;

/** A source with no queued work and no live deployment: nothing the bridge still has to do for it. */
const IDLE_SOURCE = `NOT EXISTS (SELECT 1 FROM queue q WHERE q.kind = s.kind AND q.namespace = s.namespace AND q.name = s.name)
  AND NOT EXISTS (SELECT 1 FROM deployments d WHERE d.source_kind = s.kind AND d.source_namespace = s.namespace
    AND d.source_name = s.name AND (d.state IS NULL OR d.state IN ${ACTIVE_SQL} OR d.pending_state IS NOT NULL))`;

/** Settled history: nothing is being sent, the forge shows it as over. */
const HISTORY = `state IS NOT NULL AND state NOT IN ${ACTIVE_SQL} AND pending_state IS NULL`;

/**
 * A failure is history once a newer commit of the same workload and lineage has a row (it was replaced);
 * `gone` is history as it is.
 */
const REPLACED = `(state = 'gone' OR EXISTS (SELECT 1 FROM deployments n WHERE n.forge = d.forge AND n.owner = d.owner
  AND n.repo = d.repo AND n.environment = d.environment AND n.deployment_name = d.deployment_name AND n.spoke = d.spoke
  AND n.workload_kind = d.workload_kind AND n.workload_namespace = d.workload_namespace AND n.workload_name = d.workload_name
  AND n.created_at > d.created_at))`;

/**
 * Deletes what has no purpose any more, in one transaction: the core tables (see RetentionPolicy), then each owner's
 * `steps` in order (`features/retention.ts`); returns how many rows of each table.
 */
export function pruneStorage<T extends string>(
  db: Db,
  now: number,
  steps: readonly PruneStep<T>[],
  policy: RetentionPolicy = DEFAULT_RETENTION,
): Pruned<T> {
  return db.transaction((): Pruned<T> => {
    const run = (sql: string, ...params: unknown[]) => db.prepare(sql).run(...params).changes;
    const sources = run(
      `DELETE FROM sources AS s WHERE (s.phase IS NULL OR s.phase = 'deleted') AND s.last_seen < ? AND ${IDLE_SOURCE}`,
      now - policy.deletedSourceMs,
    );
    const skips = run(
      `DELETE FROM skips WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.kind = skips.source_kind
        AND s.namespace = skips.source_namespace AND s.name = skips.source_name)`,
    );
    const imageLabels = run(`DELETE FROM image_labels WHERE COALESCE(used_at, stored_at) < ?`, now - policy.unusedImageMs);
    const imageTags = run(`DELETE FROM image_tags WHERE checked_at < ?`, now - policy.unusedImageMs);
    const refusals = run(`DELETE FROM forge_refusals WHERE retry_at < ?`, now - policy.refusalPastRetryMs);
    const old = run(`DELETE FROM deployments AS d WHERE ${HISTORY} AND updated_at < ? AND ${REPLACED}`, now - policy.historyMs);
    const beyond = run(
      `DELETE FROM deployments WHERE rowid IN (SELECT rowid FROM (SELECT rowid, ROW_NUMBER() OVER (
        PARTITION BY forge, owner, repo, environment, deployment_name, spoke ORDER BY updated_at DESC, created_at DESC) AS rank
        FROM deployments AS d WHERE ${HISTORY} AND ${REPLACED}) WHERE rank > ?)`,
      policy.historyPerLineage,
    );
    const pruned: Record<string, number> = {
      sources,
      skips,
      image_labels: imageLabels,
      image_tags: imageTags,
      forge_refusals: refusals,
      deployments: old + beyond,
    };
    for (const step of steps) pruned[step.table] = step.prune(db, now);
    return pruned as Pruned<T>;
  })();
}
