import type { Logger } from 'pino';
import type { CommitStatusPort } from './forgejo-types.js';

/** DRY_RUN on Forgejo: reads go to Forgejo, each status is logged instead of sent. */
export function forgejoDryRunPort(inner: CommitStatusPort, log: Logger): CommitStatusPort {
  let index = 0;
  return {
    latestStatus: (repo, sha, context) => inner.latestStatus(repo, sha, context),
    recentStatuses: (repo, sha) => inner.recentStatuses(repo, sha),
    createStatus(repo, sha, body) {
      log.info({ dryRun: true, repo: `${repo.owner}/${repo.repo}`, sha, body }, 'DRY_RUN: would send a Forgejo commit status');
      return Promise.resolve({
        id: --index,
        status: body.state,
        context: body.context,
        description: body.description,
        target_url: body.target_url ?? '',
        created_at: new Date().toISOString(),
      });
    },
  };
}
