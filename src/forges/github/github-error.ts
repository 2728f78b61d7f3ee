import { ForgeCallFailure } from '../../common/errors.js';

/** A failed GitHub request as octokit reports it (its status, and GitHub's time to come back for a rate limit). */
export class GitHubError extends ForgeCallFailure {
  override readonly name: string = 'GitHubError';
}
