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
  /**
   * The remote cluster of a Flux object with `spec.kubeConfig` ('' or unset: the bridge's own cluster): two spokes
   * reporting the same commit in one environment keep a deployment each, and supersede only their own.
   */
  spoke?: string;
}

/** The identity of a target or row: its identity fields alone. */
export const identityOf = (t: Identity): Identity => ({
  forge: t.forge,
  owner: t.owner,
  repo: t.repo,
  environment: t.environment,
  sha: t.sha,
  deploymentName: t.deploymentName,
  ...(t.spoke ? { spoke: t.spoke } : {}),
});

/** The key of a target: its forge, then (owner, repo, environment, sha, deploymentName[, spoke]): `forgejo|acme|web|…`. */
export function identityKey(t: Identity): string {
  const key = [t.forge, t.owner.toLowerCase(), t.repo.toLowerCase(), t.environment, t.sha, t.deploymentName].join('|');
  return t.spoke ? `${key}|${t.spoke}` : key;
}
