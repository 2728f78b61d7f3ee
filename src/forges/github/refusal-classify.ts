import { isRetryable } from '../../common/errors.js';
import { GitHubError } from './github-error.js';
import { REFUSAL_RETRY_MS, refusalKeys, type Refusal, type RefusalCode, type RefusalTarget } from '../../lifecycle/refusal.js';
import { GitHubCallError } from './call-error.js';

/**
 * GitHub answered 404 on a deployment whose id the bridge holds (listing or creating its statuses):
 * someone deleted it on GitHub. The publisher forgets its row and throws this; the refusal guard
 * then publishes again (a new deployment, once, when the commit still needs a status) and cleanup
 * counts the `inactive` it was sending as done.
 */
export class DeploymentDeleted extends GitHubCallError {
  constructor(
    /** The deployment's identity (its forgotten row). */
    readonly identity: RefusalTarget,
    readonly deploymentId: number,
    cause: GitHubCallError,
  ) {
    super(`deployment ${deploymentId} was deleted on GitHub (${cause.message})`, 404, cause.githubMessage, cause.operation, { cause });
  }
}

/** A failed call on a held deployment as DeploymentDeleted when it was a 404 on the deployment itself, else undefined. */
export function deletedOnGitHub(err: unknown, identity: RefusalTarget, deploymentId: number): DeploymentDeleted | undefined {
  const onDeployment = err instanceof GitHubCallError && (err.operation === 'listStatuses' || err.operation === 'createStatus');
  return onDeployment && err.status === 404 ? new DeploymentDeleted(identity, deploymentId, err) : undefined;
}

/**
 * Sorts a GitHub failure: undefined when retrying soon may help (5xx, timeouts, rate limits, 401);
 * else the refusal with an actionable reason. 404 and 403 block the repository, 409 and 422 the
 * one deployment. Pure.
 */
export function githubRefusalOf(err: unknown, t: RefusalTarget, auth: 'token' | 'app', now: number): Refusal | undefined {
  if (!(err instanceof GitHubError) || isRetryable(err) || err.status === undefined) return undefined;
  const status = err.status;
  const op = err instanceof GitHubCallError ? err.operation : undefined;
  const said = err instanceof GitHubCallError && err.githubMessage !== undefined ? err.githubMessage : err.message;
  const where = `${t.owner}/${t.repo}`;
  const commit = t.sha.slice(0, 7);
  const keys = refusalKeys(t);
  const who = auth === 'app' ? 'the GitHub App' : 'GITHUB_TOKEN';
  const out = (key: string, code: RefusalCode, reason: string): Refusal => ({
    forge: 'github',
    key,
    code,
    reason,
    status,
    retryAt: now + REFUSAL_RETRY_MS,
  });

  if (status === 404) {
    if (op === 'installation')
      return out(
        keys.repo,
        'github_not_installed',
        `App not installed on ${where}: install the GitHub App on ${t.owner} with access to ${t.repo}`,
      );
    if (op === 'installationToken')
      return out(
        keys.repo,
        'github_not_installed',
        `App installation for ${where} not found: reinstall the App or fix GITHUB_APP_INSTALLATION_ID`,
      );
    if (err instanceof DeploymentDeleted)
      return out(
        keys.deployment,
        'github_not_found',
        `the deployment of ${commit} in ${where} was deleted on GitHub, and so was the new one (404)`,
      );
    if (op === 'listStatuses' || op === 'createStatus')
      return out(keys.deployment, 'github_not_found', `the deployment of ${commit} in ${where} no longer exists on GitHub (404)`);
    return auth === 'app'
      ? out(
          keys.repo,
          'github_not_found',
          `${where} not found, or the App installation cannot see it: add ${t.repo} to the App's installation`,
        )
      : out(keys.repo, 'github_not_found', `${where} not found, or GITHUB_TOKEN cannot see it: give the token access to the repository`);
  }
  if (status === 403) {
    if (op === 'installationToken')
      return out(
        keys.repo,
        'github_forbidden',
        `GitHub refused an installation token for ${where} (403 ${said}): is the installation suspended?`,
      );
    return out(
      keys.repo,
      'github_forbidden',
      `GitHub refused access to ${where} (403 ${said}): give ${who} Deployments read & write on it`,
    );
  }
  if (status === 422 && op === 'installationToken') {
    return out(
      keys.repo,
      'github_forbidden',
      `the App installation for ${where} lacks Deployments write or Metadata read (422 ${said}): accept the App's permissions on the installation`,
    );
  }
  if (status === 422 && op === 'createDeployment' && /no ref found|not found|no commit/i.test(said)) {
    return out(
      keys.deployment,
      'github_invalid',
      `commit ${commit} not found in ${where}: push it, or fix the image's revision label or the commit annotation`,
    );
  }
  if (status === 422) return out(keys.deployment, 'github_invalid', `GitHub refused the deployment of ${commit} to ${where} (422 ${said})`);
  if (status === 409)
    return out(keys.deployment, 'github_conflict', `GitHub answered 409 for the deployment of ${commit} to ${where}: ${said}`);
  return out(keys.deployment, 'github_rejected', `GitHub refused ${op ?? 'a request'} for ${where} (${status} ${said})`);
}
