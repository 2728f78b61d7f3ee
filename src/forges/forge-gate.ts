/**
 * The gate in front of a token forge's requests (Forgejo, GitLab): nothing is sent while its work is
 * paused (a not-sent ForgeError naming the pause's end), a success clears an outage, and a failure
 * tells the health what it means: 401 → the credential check, a named time → a pause, 5xx or no
 * answer → an outage.
 */
import type { Logger } from 'pino';
import { ForgeError } from '../common/errors.js';
import type { CredentialMonitor } from './credential-monitor.js';
import { ForgePaused, TOKEN_SCOPE, type ForgeHealth } from './forge-health.js';

export interface ForgeGateOptions {
  health: ForgeHealth;
  monitor: Pick<CredentialMonitor, 'rejected'>;
  log: Logger;
  /** How the forge asks to wait, for the log line: `Forgejo asked to wait (Retry-After)`. */
  waitWords: string;
  /** Counts a request not sent because the forge's work is paused. */
  notSent: () => void;
  /** Turns the client's own error into a ForgeError (GitLab's `GitLabError`); identity by default. */
  translate?: (err: unknown) => unknown;
  /**
   * The scope a rate limit pauses (default the token's: all of the forge's work). Pull request comments pass
   * `commentScope(TOKEN_SCOPE)`: a wait a comment was told pauses comments only; they still wait for the token's.
   */
  pauseScope?: string;
}

export function forgeGate(o: ForgeGateOptions): <T>(call: () => Promise<T>) => Promise<T> {
  const observeFailure = (err: ForgeError) => {
    if (err.status === 401) o.monitor.rejected(err.forgeMessage ?? 'unauthorized');
    else if (err.retryAt !== undefined) {
      o.health.rateLimited({ kind: 'secondary', until: err.retryAt, reason: err.message }, o.pauseScope ?? TOKEN_SCOPE);
      const what = o.pauseScope === undefined ? 'its work' : `its requests of ${o.pauseScope}`;
      o.log.warn({ until: new Date(err.retryAt).toISOString() }, `${o.waitWords}: pausing ${what}`);
    } else if (err.status === undefined || err.status >= 500) o.health.unreachable(err.message);
  };
  return async (call) => {
    try {
      o.health.assertOpen();
      if (o.pauseScope !== undefined) o.health.assertOpen(o.pauseScope);
    } catch (err) {
      if (!(err instanceof ForgePaused)) throw err;
      o.notSent();
      throw new ForgeError(err.message, undefined, { cause: err, retryAt: err.pause.until, notSent: true });
    }
    try {
      const out = await call();
      o.health.succeeded();
      return out;
    } catch (err) {
      const e = o.translate === undefined ? err : o.translate(err);
      if (e instanceof ForgeError) observeFailure(e);
      throw e;
    }
  };
}
