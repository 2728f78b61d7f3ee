/**
 * Forgejo's (and Gitea's) commit times: `GET /repos/{owner}/{repo}/git/commits/{sha}` without stats, signature
 * check or files (the cheap read), its `commit.committer.date`, through the same client and gate as the statuses.
 */
import { commitMissing, forgeDate, type CommitTimesPort } from '../commit-times-port.js';
import type { ForgejoClient } from './forgejo-client.js';

const seg = encodeURIComponent;
const CHEAP = { stat: 'false', verification: 'false', files: 'false' };

export function forgejoCommitTimes(client: Pick<ForgejoClient, 'send'>, gated: <T>(fn: () => Promise<T>) => Promise<T>): CommitTimesPort {
  return {
    async committedAt(owner, repo, sha) {
      const path = `/repos/${seg(owner)}/${seg(repo)}/git/commits/${seg(sha)}`;
      const what = `read the commit ${owner}/${repo}@${sha.slice(0, 12)}`;
      try {
        const res = await gated(() => client.send('getCommit', what, 'GET', path, CHEAP));
        const commit = res.data as { commit?: { committer?: { date?: unknown } | null } | null } | null;
        return forgeDate(commit?.commit?.committer?.date);
      } catch (err) {
        if (commitMissing(err)) return null;
        throw err;
      }
    },
  };
}
