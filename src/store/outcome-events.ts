/**
 * The spine's one event to the features: a deployment's outcome recorded. Each write of a new success or failure to a
 * deployments row (`DeploymentStore`, or a forge's own rows of that table) tells every listener of its database, in
 * the transaction that then writes the new state, so a listener's write and the state are one write (a listener that
 * throws undoes both). The store knows no listener; a feature (the DORA figures) subscribes when it starts.
 */
import type { Db } from './database.js';

/** A success or failure the deployments row did not show yet, with the row's identity and first-seen time. */
export interface OutcomeRecorded {
  forge: string;
  owner: string;
  repo: string;
  environment: string;
  deploymentName: string;
  sha: string;
  /** When the row was first written (its `created_at`). */
  startedAt: number;
  outcome: 'success' | 'failure';
  at: number;
}

export type OutcomeListener = (e: OutcomeRecorded) => void;

const listeners = new WeakMap<Db, Set<OutcomeListener>>();

/** Tells `listener` of every outcome recorded in `db` from now on (once, however often it is subscribed); the return unsubscribes. */
export function onOutcomeRecorded(db: Db, listener: OutcomeListener): () => void {
  const set = listeners.get(db) ?? new Set<OutcomeListener>();
  listeners.set(db, set);
  set.add(listener);
  return () => set.delete(listener);
}

interface OutcomeRaw {
  forge: string;
  owner: string;
  repo: string;
  environment: string;
  deployment_name: string;
  sha: string;
  created_at: number;
}

/**
 * Emits an outcome when `state` is a success or failure that the deployments row (`where`, with `params`) does not
 * show yet; anything else emits nothing. Run it in the transaction that then writes the new state.
 */
export function recordOutcome(db: Db, where: string, params: Record<string, unknown>, state: string | null, now: number): void {
  if (state !== 'success' && state !== 'failure') return;
  const set = listeners.get(db);
  if (set === undefined || set.size === 0) return;
  const rows = db
    .prepare(
      `SELECT forge, owner, repo, environment, deployment_name, sha, created_at FROM deployments WHERE ${where} AND state IS NOT @outcome`,
    )
    .all({ ...params, outcome: state }) as OutcomeRaw[];
  for (const r of rows) {
    const e: OutcomeRecorded = {
      forge: r.forge,
      owner: r.owner,
      repo: r.repo,
      environment: r.environment,
      deploymentName: r.deployment_name,
      sha: r.sha,
      startedAt: r.created_at,
      outcome: state,
      at: now,
    };
    for (const listener of set) listener(e);
  }
}
