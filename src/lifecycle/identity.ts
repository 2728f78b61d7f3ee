/** A forge's name: the `forge` field of targets and rows, the `forge` label of metrics and its key in /state (`github`). */
export type ForgeName = string;

/**
 * The identity of one deployment, on any forge: one per (forge, owner, repo, environment, sha, deploymentName).
 * On a forge without deployment objects it is one commit-status context.
 */
export interface Identity {
  forge: ForgeName;
  owner: string;
  repo: string;
  environment: string;
  sha: string;
  deploymentName: string;
}

/** The identity of a target or row: its identity fields alone. */
export const identityOf = (t: Identity): Identity => ({
  forge: t.forge,
  owner: t.owner,
  repo: t.repo,
  environment: t.environment,
  sha: t.sha,
  deploymentName: t.deploymentName,
});

/** The key of a target: its forge, then (owner, repo, environment, sha, deploymentName): `forgejo|acme|web|…`. */
export function identityKey(t: Identity): string {
  return [t.forge, t.owner.toLowerCase(), t.repo.toLowerCase(), t.environment, t.sha, t.deploymentName].join('|');
}
