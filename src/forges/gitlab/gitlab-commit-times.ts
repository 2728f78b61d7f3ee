/**
 * GitLab's commit times: `GET /projects/:id/repository/commits/:sha?stats=false`, its `committed_date`, through
 * the same client and gate as the deployments (paused while GitLab asked to wait, counted in /metrics).
 */
import { commitMissing, forgeDate, type CommitTimesPort } from '../commit-times-port.js';
import type { GitLabClient } from './gitlab-client.js';
import { projectId } from './gitlab-url.js';

export function gitlabCommitTimes(client: Pick<GitLabClient, 'send'>, gated: <T>(fn: () => Promise<T>) => Promise<T>): CommitTimesPort {
  return {
    async committedAt(owner, repo, sha) {
      const path = `/projects/${projectId(`${owner}/${repo}`)}/repository/commits/${encodeURIComponent(sha)}`;
      const what = `read the commit ${owner}/${repo}@${sha.slice(0, 12)}`;
      try {
        const res = await gated(() => client.send({ op: 'getCommit', what, method: 'GET', path, query: { stats: 'false' } }));
        return forgeDate((res.data as { committed_date?: unknown } | null)?.committed_date);
      } catch (err) {
        if (commitMissing(err)) return null;
        throw err;
      }
    },
  };
}
