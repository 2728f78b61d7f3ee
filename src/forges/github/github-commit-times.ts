/**
 * GitHub's commit times: `GET /repos/{owner}/{repo}/git/commits/{commit_sha}` (the git commit object: its dates,
 * not the diff that `GET …/commits/{ref}` carries), `committer.date`, through the same clients as the deployments
 * (paused, counted against the primary budget; a read is not content-generating). An App asks for a token of its
 * own for it (`contents: read`), so an installation without that permission loses lead times only.
 */
import type { Octokit } from '@octokit/core';
import { commitMissing, forgeDate, type CommitTimesPort } from '../commit-times-port.js';
import type { RepoRef } from './github-types.js';
import { GitHubCallError } from './call-error.js';
import { callGitHub, GITHUB_TIMEOUT_MS } from './octokit-factory.js';

/** What an installation token for commit times may do (least privilege). */
export const COMMIT_TOKEN_PERMISSIONS = { contents: 'read', metadata: 'read' } as const;

export function githubCommitTimes(clientFor: (r: RepoRef) => Promise<Octokit>, timeoutMs = GITHUB_TIMEOUT_MS): CommitTimesPort {
  return {
    async committedAt(owner, repo, sha) {
      const what = `read the commit ${owner}/${repo}@${sha.slice(0, 12)}`;
      const octokit = await clientFor({ owner, repo });
      try {
        const commit = await callGitHub<{ committer?: { date?: unknown } | null }>(
          'getCommit',
          what,
          (signal) =>
            octokit.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { owner, repo, commit_sha: sha, request: { signal } }),
          timeoutMs,
        );
        return forgeDate(commit.committer?.date);
      } catch (err) {
        // An installation not granted Contents read: GitHub refuses the token (422) when the read mints it, not the commit.
        if (err instanceof GitHubCallError && err.operation === 'installationToken' && err.status === 422)
          throw new GitHubCallError(
            `${what}: the App was not granted Contents read (${err.githubMessage ?? err.message})`,
            403,
            err.githubMessage,
            'getCommit',
            { cause: err },
          );
        if (commitMissing(err)) return null;
        throw err;
      }
    },
  };
}
