import { ACTIVE_STATES } from '../lifecycle/status-plan.js';
import type { Db } from './database.js';

/**
 * How long rows without a purpose are kept. Each has its reason:
 * - a source whose Flux object is gone and that has nothing left to clean up is kept a day (/state shows it went);
 * - a registry answer nobody read for 14 days: a digest's labels, a tag's digest (a tag in use is checked every few minutes);
 * - a refusal a day past its retry time (the retry has long happened, or nothing asked again);
 * - a deployment's settled history (gone; a failure a newer commit of the workload replaced) 14 days, and at most
 *   20 rows per lineage whatever their age: lineage() reads those on every publish, and none of them is superseded again;
 * - a pull request comment whose rows are all gone, with nothing left to write, 14 days after its last change (the
 *   pull request was closed: a preview that comes back later gets a new comment).
 * - a recorded outcome (the DORA figures) 90 days: the longest window the figures are read over, with room to spare;
 *   a commit's time once no outcome of its commit is left (it is read again only if the commit is deployed again), an
 *   environment's kind once none of its outcomes is left and it was not published into for as long.
 */
export interface RetentionPolicy {
  deletedSourceMs: number;
  unusedImageMs: number;
  refusalPastRetryMs: number;
  historyMs: number;
  historyPerLineage: number;
  outcomesMs: number;
}

const DAY_MS = 24 * 60 * 60_000;

export const DEFAULT_RETENTION: RetentionPolicy = {
  deletedSourceMs: DAY_MS,
  unusedImageMs: 14 * DAY_MS,
  refusalPastRetryMs: DAY_MS,
  historyMs: 14 * DAY_MS,
  historyPerLineage: 20,
  outcomesMs: 90 * DAY_MS,
};

/** Rows one prune removed, by table. */
export type Pruned = Record<
  | 'sources'
  | 'skips'
  | 'image_labels'
  | 'image_tags'
  | 'forge_refusals'
  | 'deployments'
  | 'deployment_outcomes'
  | 'commit_times'
  | 'environment_kinds'
  | 'pr_comments'
  | 'pr_comment_rows',
  number
>;

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

/** A comment row `r` of comment `c`. */
const SAME_COMMENT = `r.forge = c.forge AND r.owner = c.owner AND r.repo = c.repo AND r.pr = c.pr AND r.cluster = c.cluster`;

/** Deletes what has no purpose any more (see RetentionPolicy), in one transaction; returns how many rows of each table. */
export function pruneStorage(db: Db, now: number, policy: RetentionPolicy = DEFAULT_RETENTION): Pruned {
  return db.transaction((): Pruned => {
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
    const comments = run(
      `DELETE FROM pr_comments AS c WHERE c.pending = 0 AND c.dirty = 0 AND c.updated_at < ? AND NOT EXISTS (SELECT 1
        FROM pr_comment_rows r WHERE ${SAME_COMMENT} AND r.state != 'gone')`,
      now - policy.historyMs,
    );
    const commentRows = run(`DELETE FROM pr_comment_rows AS r WHERE NOT EXISTS (SELECT 1 FROM pr_comments c WHERE ${SAME_COMMENT})`);
    const outcomes = run(`DELETE FROM deployment_outcomes WHERE at < ?`, now - policy.outcomesMs);
    const commitTimes = run(
      `DELETE FROM commit_times AS c WHERE NOT EXISTS (SELECT 1 FROM deployment_outcomes o WHERE o.forge = c.forge
        AND o.owner = c.owner AND o.repo = c.repo AND o.sha = c.sha)`,
    );
    const kinds = run(
      `DELETE FROM environment_kinds AS k WHERE k.seen_at < ? AND NOT EXISTS (SELECT 1 FROM deployment_outcomes o
        WHERE o.forge = k.forge AND o.owner = k.owner AND o.repo = k.repo AND o.environment = k.environment)`,
      now - policy.outcomesMs,
    );
    return {
      sources,
      skips,
      image_labels: imageLabels,
      image_tags: imageTags,
      forge_refusals: refusals,
      deployments: old + beyond,
      pr_comments: comments,
      pr_comment_rows: commentRows,
      deployment_outcomes: outcomes,
      commit_times: commitTimes,
      environment_kinds: kinds,
    };
  })();
}
