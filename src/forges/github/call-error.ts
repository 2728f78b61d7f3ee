import { GitHubError } from './github-error.js';
import { ForgeError } from '../../common/errors.js';
import { ForgePaused } from '../forge-health.js';

/** The GitHub calls the bridge makes, named so a refusal can say what was refused. */
export type GitHubOperation =
  | 'listDeployments'
  | 'findDeployments'
  | 'createDeployment'
  | 'listStatuses'
  | 'createStatus'
  | 'installation'
  | 'installationToken'
  | 'credentialCheck'
  | 'getCommit'
  | CommentOperation;

/** The pull request comment calls (github-comments.ts). */
export type CommentOperation = 'pullRequest' | 'listComments' | 'createComment' | 'editComment' | 'whoami';

/** A GitHub request that failed: GitHub's status and message, or none for network failures and timeouts. */
export class GitHubCallError extends GitHubError {
  override readonly name = 'GitHubCallError';
  constructor(
    message: string,
    status: number | undefined,
    /** GitHub's own `message` field, when it answered. */
    readonly githubMessage: string | undefined,
    readonly operation: GitHubOperation | undefined,
    options?: { cause?: unknown; retryAt?: number },
  ) {
    super(message, status, options);
  }
}

/** The same failure, said as "<what>: <why>" and tagged with the operation (a nested call keeps its own). */
export function inOperation(err: GitHubCallError, operation: GitHubOperation, what: string): GitHubCallError {
  return new GitHubCallError(`${what}: ${err.message}`, err.status, err.githubMessage, err.operation ?? operation, {
    cause: err.cause ?? err,
    ...(err.retryAt !== undefined ? { retryAt: err.retryAt } : {}),
  });
}

/** GitHub's rejection of the credentials: a 401 answer, as the credential monitor reports it. */
export const githubUnauthorized = (err: unknown): string | undefined =>
  err instanceof GitHubCallError && err.status === 401 ? `401 ${err.githubMessage ?? err.message}` : undefined;

/** True when GitHub definitely did not apply the request: never sent (paused), or a 4xx answer (not a timeout or 5xx). */
export function definitelyRefused(err: unknown): boolean {
  // Paused, or its turn in the write budget had not come (BudgetDeferred): never sent.
  if (err instanceof ForgePaused || (err instanceof ForgeError && err.notSent)) return true;
  return err instanceof GitHubError && err.status !== undefined && err.status >= 400 && err.status < 500;
}
