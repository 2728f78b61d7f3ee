/**
 * The GitLab lifecycle of one deployment (project, environment, commit, deployment name, cluster):
 * from the bridge's cached row and the desired delivery state to the one GitLab call that brings
 * GitLab there, or none. Pure.
 *
 * GitLab's status machine (`app/models/deployment.rb`): `run` only from created or blocked, `succeed`
 * from anything but success, `drop` (failed) from anything but failed, `cancel` from anything but
 * canceled. So a deployment is created `running` when a new commit is first seen rolling out, or
 * directly `success` when it is already live (catch-up), or `failed`; it moves running → success or
 * failed, and a failure retried to success updates the same deployment. running → running,
 * success → running and success → success are never sent. There is no `inactive`: GitLab's current
 * deployment of an environment is its latest success, so a superseded deployment needs no write.
 */
import type { GitLabStatus } from './gitlab-types.js';

/**
 * The desired delivery state of a target, in this forge's terms for now. It maps to the neutral
 * delivery states of src/lifecycle/ once the forge seam lands: in_progress ← pending/in progress,
 * success ← success, failure ← failure/error, gone ← retired (the workload is gone).
 */
export type GitLabDesired = 'in_progress' | 'success' | 'failure' | 'gone';

/** What the bridge's store says of this deployment. */
export type GitLabRow =
  /** Never written: no row. */
  | { kind: 'none' }
  /** A provisional row: the create was (maybe) sent, its answer not stored (a crash, a lost answer). */
  | { kind: 'provisional' }
  /** The deployment GitLab has, and the last status the bridge saw it accept. */
  | { kind: 'known'; deploymentId: number; status: GitLabStatus };

export type GitLabCall =
  | { call: 'create'; status: GitLabStatus }
  | { call: 'update'; deploymentId: number; status: GitLabStatus }
  /** Find the deployment a provisional row may have made (`findOwnDeployment`), then plan again with what was found. */
  | { call: 'recover' };

/** The state machine events by the status they set, and the states each may not fire from. */
const REFUSED_FROM: Record<GitLabStatus, (from: GitLabStatus) => boolean> = {
  running: () => true, // `run` fires only from created or blocked, which no deployment of the bridge is in
  success: (from) => from === 'success',
  failed: (from) => from === 'failed',
  canceled: (from) => from === 'canceled',
};

/** Whether GitLab accepts a deployment moving from `from` to `to` (for a deployment the bridge made). */
export function transitionAllowed(from: GitLabStatus, to: GitLabStatus): boolean {
  return !REFUSED_FROM[to](from);
}

/** The status a new deployment is created with for a desired state; none for `gone`. */
const CREATE_AS: Record<GitLabDesired, GitLabStatus | undefined> = {
  in_progress: 'running',
  success: 'success',
  failure: 'failed',
  gone: undefined,
};

/**
 * The status an existing deployment should move to; undefined when it should stay. A running
 * deployment whose workload is gone is canceled (it would show as running forever); a finished one
 * keeps its history. A rollout starting again for the same commit (a restart) writes nothing: GitLab
 * cannot go back to running.
 */
const MOVE_TO: Record<GitLabDesired, GitLabStatus | undefined> = {
  in_progress: undefined,
  success: 'success',
  failure: 'failed',
  gone: 'canceled',
};

/** The one call to make now, or undefined when GitLab already says what is true (or cannot say it). */
export function planGitLab(row: GitLabRow, desired: GitLabDesired): GitLabCall | undefined {
  if (row.kind === 'provisional') return { call: 'recover' };
  if (row.kind === 'none') {
    const status = CREATE_AS[desired];
    return status === undefined ? undefined : { call: 'create', status };
  }
  const to = MOVE_TO[desired];
  if (to === undefined || to === row.status || !transitionAllowed(row.status, to)) return undefined;
  if (to === 'canceled' && row.status !== 'running') return undefined;
  return { call: 'update', deploymentId: row.deploymentId, status: to };
}
