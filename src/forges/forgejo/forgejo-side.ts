import type { CredentialMonitor } from '../credential-monitor.js';
import type { ForgeHealth } from '../forge-health.js';
import { requestCounter, tokenSide, type TokenForgeOptions } from '../token-side.js';
import { ForgejoClient } from './forgejo-client.js';
import { ForgeError } from '../../common/errors.js';
import type { ForgejoLocation } from './forgejo-url.js';
import type { CommitStatusPort } from './forgejo-types.js';
import type { CommentsPort } from '../comments-port.js';
import type { CommitTimesPort } from '../commit-times-port.js';
import { forgejoComments } from './forgejo-comments.js';
import { forgejoCommitTimes } from './forgejo-commit-times.js';

export interface ForgejoSideOptions extends TokenForgeOptions<ForgejoLocation> {
  timeoutMs?: number;
}

/** The Forgejo side as the rest of the bridge sees it: the commit-status port, its health, the credential check. */
export interface ForgejoSide {
  port: CommitStatusPort;
  /** Pull request comments, through the same client and gate. */
  comments: CommentsPort;
  /** Commit times (the DORA lead time), through the same client and gate. */
  commits: CommitTimesPort;
  health: ForgeHealth;
  monitor: CredentialMonitor;
}

/**
 * Builds the Forgejo client with the same health tracker and credential check as GitHub's: nothing is
 * sent while paused (rejected token, a 429/503 that named a time), a 401 pauses the side until the
 * check (`GET /user`) passes again, and 5xx or network failures show as an outage until a request
 * succeeds. A 403 from the check means a valid token without `read:user`: accepted.
 */
export function createForgejoSide(o: ForgejoSideOptions): ForgejoSide {
  const client = new ForgejoClient({
    apiBase: o.location.apiBase,
    token: o.token,
    userAgent: o.userAgent,
    now: o.now,
    ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    observe: requestCounter(o.metrics, 'forgejo'),
  });
  const { health, monitor, gated, commentsGated } = tokenSide({
    forge: 'forgejo',
    title: 'Forgejo',
    metrics: o.metrics,
    log: o.log,
    now: o.now,
    check: async () => {
      try {
        await client.currentUser();
      } catch (err) {
        if (!(err instanceof ForgeError && err.status === 403)) throw err;
      }
    },
    waitWords: 'Forgejo asked to wait (Retry-After)',
  });
  const port: CommitStatusPort = {
    createStatus: (repo, sha, body) => gated(() => client.createStatus(repo, sha, body)),
    latestStatus: (repo, sha, context) => gated(() => client.latestStatus(repo, sha, context)),
    recentStatuses: (repo, sha) => gated(() => client.recentStatuses(repo, sha)),
  };
  return { port, comments: forgejoComments(client, commentsGated), commits: forgejoCommitTimes(client, gated), health, monitor };
}
