/**
 * Crash recovery: after a provisional row (the create was maybe sent, its answer never stored), find
 * the deployment that create made before creating another. A GitLab deployment carries no payload,
 * so it is recognised by what it has: the environment, the commit, and the user the token belongs to
 * (never another user's deployment of the same commit: a CI job, a colleague, another bridge with
 * its own token). Two workloads of one project in one environment cannot be told apart this way:
 * give each its own environment (`staging/frontend`); deployments other rows already hold are left
 * out, and more than one candidate is reported, not guessed. Pure.
 */
import type { GitLabDeployment, GitLabStatus } from './gitlab-types.js';

/** The statuses a create by the bridge uses: the ones to list when looking for it. */
export const CREATED_AS: readonly GitLabStatus[] = ['running', 'success', 'failed'];

export interface RecoveryKey {
  environment: string;
  sha: string;
  /** The token's user (`GET /user`). */
  userId: number;
  /** Deployment ids other rows of the bridge already hold. */
  claimed: ReadonlySet<number>;
}

export type Recovery = { found: GitLabDeployment } | { none: true } | { ambiguous: number[] };

/**
 * More than one deployment could be the one a crashed create made: refused, not guessed (the wrong pick
 * would move another workload's or another cluster's deployment). The provisional row stays, so the
 * retry (after the refusal's hour) looks again instead of creating yet another deployment.
 */
export class AmbiguousRecovery extends Error {
  override readonly name = 'AmbiguousRecovery';
  constructor(
    readonly environment: string,
    readonly sha: string,
    readonly candidates: readonly number[],
  ) {
    super(
      `GitLab has ${candidates.length} deployments of ${sha.slice(0, 7)} to ${environment} by this token's user (${candidates.join(', ')}) ` +
        `and none is known to this bridge: it cannot tell which one its interrupted create made. Give each workload its own environment ` +
        `(staging/frontend) and each cluster its own token or environment, then delete the surplus deployments or wait for a new commit`,
    );
  }
}

/** The one deployment among `listed` (the environment's deployments in CREATED_AS statuses) the provisional create made. */
export function findOwnDeployment(listed: readonly GitLabDeployment[], k: RecoveryKey): Recovery {
  const sha = k.sha.toLowerCase();
  const ours = new Map<number, GitLabDeployment>();
  for (const d of listed)
    if (d.sha.toLowerCase() === sha && d.user?.id === k.userId && d.environment?.name === k.environment && !k.claimed.has(d.id))
      ours.set(d.id, d);
  const [first, ...more] = [...ours.values()].sort((a, b) => b.id - a.id);
  if (first === undefined) return { none: true };
  if (more.length > 0) return { ambiguous: [first.id, ...more.map((d) => d.id)] };
  return { found: first };
}
