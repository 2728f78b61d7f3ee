import type { Logger } from 'pino';
import { refusalKeys, refusalOf } from '../forges/github/refusal-classify.js';
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { Publisher, PublishResult } from './deployment-publisher.js';
import type { DeploymentStore, Origin } from '../store/deployment-store.js';
import type { RefusalStore, StoredRefusal } from '../store/refusal-store.js';

/** GitHub refused this target (now, or earlier and not yet due for a retry); the workload is skipped with the reason. */
export class RefusedByGitHub extends Error {
  override readonly name = 'RefusedByGitHub';
  constructor(
    readonly refusal: StoredRefusal,
    options?: { cause?: unknown },
  ) {
    super(`${refusal.reason} (next try ${new Date(refusal.retryAt).toISOString()})`, options);
  }
}

export interface GuardedPublisherOptions {
  publisher: Pick<Publisher, 'publish'>;
  refusals: RefusalStore;
  deployments: DeploymentStore;
  auth: 'token' | 'app';
  log: Logger;
  now: () => number;
}

/**
 * Publishes unless GitHub refused the target's repository or deployment recently. A refusal (404,
 * 403, 409, 422) is remembered in SQLite with a late retry time, so neither the resync loop nor a
 * restart repeats the failing request before then; a success forgets it.
 */
export class GuardedPublisher {
  constructor(private readonly o: GuardedPublisherOptions) {}

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<PublishResult> {
    const { refusals, now } = this.o;
    const keys = refusalKeys(target);
    const held = refusals.active([keys.repo, keys.deployment], now());
    if (held !== undefined) throw new RefusedByGitHub(held);
    try {
      const result = await this.o.publisher.publish(target, origin, desired, description);
      refusals.clear([keys.repo, keys.deployment]);
      return result;
    } catch (err) {
      const refusal = refusalOf(err, target, this.o.auth, now());
      if (refusal === undefined) throw err;
      const stored = refusals.record(refusal, now());
      // Nothing was created: the next attempt starts with a fresh find-or-create (its list call finds any earlier one).
      this.o.deployments.removeProvisional(target);
      this.o.log.warn(
        { code: stored.code, reason: stored.reason, retryAt: new Date(stored.retryAt).toISOString() },
        'GitHub refused; not retried before the retry time',
      );
      throw new RefusedByGitHub(stored, { cause: err });
    }
  }
}
