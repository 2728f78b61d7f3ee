/**
 * The GitLab side as the rest of the bridge sees it: the client behind a `ForgeHealth` and a
 * `CredentialMonitor`, as Forgejo's. Nothing is sent while paused (a rejected token, a 429/503 that
 * named a time by `Retry-After` or `RateLimit-Reset`); a 401 makes the side unready until the check
 * (`GET /user`) passes again; 5xx or network failures show as an outage until a request succeeds.
 * Every GitLabError leaves as a ForgeError (the queue's retry rules), the GitLabError as its cause.
 */
import { ForgeError } from '../../common/errors.js';
import type { CommentsPort } from '../comments-port.js';
import type { CommitTimesPort } from '../commit-times-port.js';
import type { CredentialMonitor } from '../credential-monitor.js';
import type { ForgeHealth } from '../forge-health.js';
import { requestCounter, tokenSide, type TokenForgeOptions } from '../token-side.js';
import { GitLabClient } from './gitlab-client.js';
import { gitlabComments } from './gitlab-comments.js';
import { gitlabCommitTimes } from './gitlab-commit-times.js';
import { GitLabError } from './gitlab-error.js';
import type { GitLabLocation } from './gitlab-url.js';
import type { GitLabUser } from './gitlab-types.js';

export type GitLabSideOptions = TokenForgeOptions<GitLabLocation>;

/** The GitLab calls the publisher makes, each behind the health gate. */
export type GitLabPort = Pick<
  GitLabClient,
  | 'project'
  | 'createDeployment'
  | 'deployment'
  | 'updateDeployment'
  | 'listDeployments'
  | 'environment'
  | 'updateEnvironment'
  | 'stopEnvironment'
  | 'branchesContaining'
> & {
  /** The token's user, from the last credential check (asked for when not known yet). */
  user(): Promise<GitLabUser>;
};

export interface GitLabSide {
  port: GitLabPort;
  /** Pull request comments (merge request notes), through the same client and gate. */
  comments: CommentsPort;
  /** Commit times (the DORA lead time), through the same client and gate. */
  commits: CommitTimesPort;
  health: ForgeHealth;
  monitor: CredentialMonitor;
}

/** A GitLabError as the forge-neutral ForgeError. */
function neutral(err: GitLabError): ForgeError {
  return new ForgeError(err.message, err.status, {
    cause: err,
    operation: err.operation,
    ...(err.retryAt === undefined ? {} : { retryAt: err.retryAt }),
    ...(err.gitlabMessage === undefined ? {} : { forgeMessage: err.gitlabMessage }),
  });
}

export function createGitLabSide(o: GitLabSideOptions): GitLabSide {
  const client = new GitLabClient({
    apiBase: o.location.apiBase,
    token: o.token,
    userAgent: o.userAgent,
    now: o.now,
    observe: requestCounter(o.metrics, 'gitlab'),
  });
  let user: GitLabUser | undefined;
  const currentUser = async () => {
    try {
      user = await client.currentUser();
      return user;
    } catch (err) {
      throw err instanceof GitLabError ? neutral(err) : err;
    }
  };
  const { health, monitor, gated, commentsGated } = tokenSide({
    forge: 'gitlab',
    title: 'GitLab',
    metrics: o.metrics,
    log: o.log,
    now: o.now,
    check: async () => {
      await currentUser();
    },
    waitWords: 'GitLab asked to wait (Retry-After / RateLimit-Reset)',
    translate: (err: unknown) => (err instanceof GitLabError ? neutral(err) : err),
  });

  const port: GitLabPort = {
    user: () => (user === undefined ? gated(currentUser) : Promise.resolve(user)),
    project: (p) => gated(() => client.project(p)),
    createDeployment: (p, b) => gated(() => client.createDeployment(p, b)),
    deployment: (p, id) => gated(() => client.deployment(p, id)),
    updateDeployment: (p, id, s) => gated(() => client.updateDeployment(p, id, s)),
    listDeployments: (p, f) => gated(() => client.listDeployments(p, f)),
    environment: (p, n) => gated(() => client.environment(p, n)),
    updateEnvironment: (p, id, c) => gated(() => client.updateEnvironment(p, id, c)),
    stopEnvironment: (p, id) => gated(() => client.stopEnvironment(p, id)),
    branchesContaining: (p, sha) => gated(() => client.branchesContaining(p, sha)),
  };
  return {
    port,
    comments: gitlabComments(client, commentsGated, () => port.user()),
    commits: gitlabCommitTimes(client, gated),
    health,
    monitor,
  };
}
