/**
 * Keeps a GitLab environment saying what the bridge knows of it (`external_url`, `tier`, with
 * `GITLAB_AGENT_ID` the Kubernetes fields): one `GET` per environment and process while what is
 * wanted stays the same, one `PUT` only when GitLab differs. A failed PUT is tried again at the next
 * publish (the queue's backoff: the failure fails the publish), so an outage never leaves it unset; a
 * PUT GitLab refuses (4xx) is a refusal of the environment alone, kept an hour, shown in /state: the
 * deployment's statuses go on.
 */
import type { Logger } from 'pino';
import { ForgeError } from '../../common/errors.js';
import { REFUSAL_RETRY_MS, type Refusal } from '../../lifecycle/refusal.js';
import type { RefusalStore } from '../../store/refusal-store.js';
import { environmentChanges, type WantedEnvironment } from './gitlab-environment-plan.js';
import { classifyGitLabFailure, GitLabError } from './gitlab-error.js';
import type { GitLabPort } from './gitlab-side.js';

export interface EnvironmentSyncDeps {
  port: Pick<GitLabPort, 'environment' | 'updateEnvironment'>;
  refusals: Pick<RefusalStore, 'active' | 'record' | 'clear'>;
  log: Logger;
  now: () => number;
}

/** The refusal key of one environment's update (never a key the refusal guard holds a deployment by). */
export const environmentRefusalKey = (path: string, environment: string): string =>
  `environment:gitlab|${path.toLowerCase()}|${environment}`;

export class GitLabEnvironmentSync {
  /** Per project and environment: what was wanted when GitLab last said it (or took the PUT). */
  private readonly matched = new Map<string, string>();

  constructor(private readonly deps: EnvironmentSyncDeps) {}

  /** Brings the environment to `wanted`; throws only what retrying soon may fix (an outage, a 429, a 401). */
  async sync(path: string, environment: string, wanted: WantedEnvironment): Promise<void> {
    if (wanted.externalUrl === undefined && wanted.tier === undefined && wanted.agent === undefined) return;
    const { port, refusals, now } = this.deps;
    const cacheKey = `${path} ${environment}`;
    const signature = JSON.stringify(wanted);
    if (this.matched.get(cacheKey) === signature) return;
    const refusalKey = environmentRefusalKey(path, environment);
    if (refusals.active([refusalKey], now()) !== undefined) return;
    const current = await port.environment(path, environment);
    // GitLab creates the environment with the first deployment: none yet, nothing to set.
    if (current === null) return;
    const changes = environmentChanges(current, wanted);
    if (changes !== undefined) {
      try {
        await port.updateEnvironment(path, current.id, changes);
      } catch (err) {
        const refusal = this.refusalOf(err, path, environment, Object.keys(changes));
        if (refusal === undefined) throw err;
        const stored = refusals.record(refusal, now());
        this.deps.log.warn(
          { environment, code: stored.code, reason: stored.reason, retryAt: new Date(stored.retryAt).toISOString() },
          'GitLab refused the environment update; not retried before the retry time',
        );
        return;
      }
    }
    refusals.clear([refusalKey]);
    this.matched.set(cacheKey, signature);
  }

  /** A 4xx GitLab will answer again (a blocked URL, an agent the project cannot use) as a refusal; else undefined. */
  private refusalOf(err: unknown, path: string, environment: string, fields: string[]): Refusal | undefined {
    if (!(err instanceof ForgeError) || !(err.cause instanceof GitLabError)) return undefined;
    const failure = classifyGitLabFailure(err.cause);
    if (failure === 'pause' || failure === 'retry' || failure === 'credentials') return undefined;
    return {
      forge: 'gitlab',
      key: environmentRefusalKey(path, environment),
      code: 'gitlab_environment_rejected',
      reason: `GitLab refused to set ${fields.join(', ')} on environment ${environment} of ${path} (${err.status ?? ''} ${err.forgeMessage ?? err.message}): the deployments go on; fix the value (environment URL, tier annotation, GITLAB_AGENT_ID)`,
      status: err.status ?? null,
      retryAt: this.deps.now() + REFUSAL_RETRY_MS,
    };
  }
}
