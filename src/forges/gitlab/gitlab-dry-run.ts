import type { Logger } from 'pino';
import type { GitLabPort } from './gitlab-side.js';

/** DRY_RUN on GitLab: reads go to GitLab, each write is logged instead of sent (and answered as GitLab would). */
export function gitlabDryRunPort(inner: GitLabPort, log: Logger): GitLabPort {
  let index = 0;
  const would = (what: string, fields: Record<string, unknown>) =>
    log.info({ dryRun: true, ...fields }, `DRY_RUN: would ${what} on GitLab`);
  return {
    ...inner,
    createDeployment(path, body) {
      would('create a deployment', { project: path, body });
      return Promise.resolve({
        id: --index,
        iid: index,
        ref: body.ref,
        sha: body.sha,
        status: body.status,
        user: null,
        environment: null,
        created_at: new Date().toISOString(),
      });
    },
    updateDeployment(path, id, status) {
      would('set a deployment status', { project: path, deploymentId: id, status });
      return Promise.resolve({
        id,
        iid: id,
        ref: '',
        sha: '',
        status,
        user: null,
        environment: null,
        created_at: new Date().toISOString(),
      });
    },
    updateEnvironment(path, id, changes) {
      would('update an environment', { project: path, environmentId: id, changes });
      return Promise.resolve({ id, name: '', external_url: changes.external_url ?? null, tier: changes.tier ?? null, state: 'available' });
    },
    stopEnvironment(path, id) {
      would('stop an environment', { project: path, environmentId: id });
      return Promise.resolve({ id, name: '', external_url: null, tier: null, state: 'stopped' });
    },
  };
}
