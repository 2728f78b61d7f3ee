/**
 * Sorts a GitLab failure (by `classifyGitLabFailure`): undefined when retrying soon may help (5xx,
 * network, timeouts, 401, 429/503 that named a time), else a refusal with what a person should do.
 * 403 and 404 refuse the project for an hour; a 400 naming an unknown commit refuses that commit;
 * any other 4xx the one deployment; a crash recovery with several candidates (`AmbiguousRecovery`)
 * the one deployment, its provisional row kept (`keepsProvisional`); a commit no branch holds
 * (`NoRefFound`) the one deployment. Pure.
 */
import { REFUSAL_RETRY_MS, refusalKeys, type Refusal, type RefusalCode, type RefusalTarget } from '../../lifecycle/refusal.js';
import { ForgeError } from '../../common/errors.js';
import { classifyGitLabFailure, GitLabError } from './gitlab-error.js';
import { AmbiguousRecovery } from './gitlab-recovery.js';
import { NoRefFound } from './gitlab-refs.js';
import { refusalFor } from '../refusal-guard.js';

export function gitlabRefusalOf(err: unknown, t: RefusalTarget, now: number): Refusal | undefined {
  const mine = (code: RefusalCode, reason: string): Refusal => ({
    forge: 'gitlab',
    key: refusalKeys({ ...t, forge: 'gitlab' }).deployment,
    code,
    reason,
    status: null,
    retryAt: now + REFUSAL_RETRY_MS,
  });
  if (err instanceof AmbiguousRecovery) return mine('gitlab_ambiguous_recovery', err.message);
  if (err instanceof NoRefFound) return mine('gitlab_no_ref', err.message);
  if (!(err instanceof ForgeError) || !(err.cause instanceof GitLabError) || err.status === undefined) return undefined;
  const failure = classifyGitLabFailure(err.cause);
  if (failure === 'pause' || failure === 'retry' || failure === 'credentials') return undefined;
  const status = err.status;
  const said = err.forgeMessage ?? err.message;
  const where = `${t.owner}/${t.repo}`;
  const keys = refusalKeys({ ...t, forge: 'gitlab' });
  const out = refusalFor('gitlab', status, now);
  if (failure === 'refuse_project')
    return out(
      keys.repo,
      status === 404 ? 'gitlab_not_found' : 'gitlab_forbidden',
      `GitLab refused ${where} (${status} ${said}): GITLAB_TOKEN needs scope api and at least the Developer role on the project`,
    );
  if (failure === 'refuse_commit')
    return out(
      keys.deployment,
      'gitlab_unknown_commit',
      /branch or tag/i.test(said)
        ? `GitLab has no such branch or tag for commit ${t.sha.slice(0, 7)} in ${where} (${status} ${said}): fix the github-deployment-bridge.io/ref annotation (or the Flux object's event.toolkit.fluxcd.io/branch), or push the branch`
        : `GitLab does not have commit ${t.sha.slice(0, 7)} in ${where} (${status} ${said}): push it, or fix the commit the workload names`,
    );
  return out(keys.deployment, 'gitlab_rejected', `GitLab refused ${err.operation ?? 'a request'} for ${where} (${status} ${said})`);
}

/** A refusal after which the provisional row must stay: GitLab may hold the deployment its create made. */
export const keepsProvisional = (err: unknown): boolean => err instanceof AmbiguousRecovery;
