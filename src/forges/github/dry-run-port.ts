import type { Logger } from 'pino';
import type { DeploymentsPort } from './github-types.js';

/**
 * DRY_RUN: reads go to GitHub, writes are logged instead of sent. Created deployments get negative
 * ids so they can never be mistaken for real ones (and the dry run keeps its cache in memory).
 */
export function dryRunPort(inner: DeploymentsPort, log: Logger): DeploymentsPort {
  let nextId = 0;
  return {
    listDeployments: (repo, q, turn) => inner.listDeployments(repo, q, turn),
    ...(inner.queryDeployments ? { queryDeployments: inner.queryDeployments.bind(inner) } : {}),
    listStatuses: (repo, id, turn) => (id < 0 ? Promise.resolve([]) : inner.listStatuses(repo, id, turn)),
    createDeployment(repo, body) {
      const id = --nextId;
      // The only line about the create: the publisher stays quiet about negative ids; the pretend id ties it to the status lines.
      log.info({ dryRun: true, repo: `${repo.owner}/${repo.repo}`, deploymentId: id, body }, 'DRY_RUN: would create a GitHub deployment');
      return Promise.resolve({
        id,
        sha: body.ref,
        ref: body.ref,
        task: body.task ?? 'deploy',
        environment: body.environment,
        payload: body.payload,
        created_at: new Date().toISOString(),
      });
    },
    createStatus(repo, deploymentId, body) {
      log.info({ dryRun: true, repo: `${repo.owner}/${repo.repo}`, deploymentId, body }, 'DRY_RUN: would send a deployment status');
      return Promise.resolve();
    },
  };
}
