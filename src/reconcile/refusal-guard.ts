import type { Logger } from 'pino';
import { DeploymentDeleted, refusalKeys, refusalOf, type Refusal } from '../forges/github/refusal-classify.js';
import { identityKey } from '../lifecycle/identity.js';
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { PublishResult } from './deployment-publisher.js';
import type { DeploymentStore, Origin } from '../store/deployment-store.js';
import type { RefusalStore, StoredRefusal } from '../store/refusal-store.js';

/** The forge refused this target (now, or earlier and not yet due for a retry); the workload is skipped with the reason. */
export class RefusedByForge extends Error {
  override readonly name = 'RefusedByForge';
  constructor(
    readonly refusal: StoredRefusal,
    options?: { cause?: unknown },
  ) {
    super(`${refusal.reason} (next try ${new Date(refusal.retryAt).toISOString()})`, options);
  }
}

/** Sorts a failure: the refusal to remember, or undefined when retrying soon may help. */
export type RefusalClassifier = (err: unknown, target: ReportTarget, now: number) => Refusal | undefined;

export interface GuardedPublisherOptions<R> {
  publisher: { publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<R> };
  refusals: RefusalStore;
  deployments: Pick<DeploymentStore, 'removeProvisional'>;
  /** GitHub's `refusalOf` for this auth kind (the default), or another forge's classifier. */
  auth: 'token' | 'app';
  classify?: RefusalClassifier;
  /** Names the forge in the log line of a refusal (default GitHub). */
  forgeName?: string;
  log: Logger;
  now: () => number;
}

/**
 * Publishes unless GitHub refused the target's repository or deployment recently. A refusal (404,
 * 403, 409, 422) is remembered in SQLite with a late retry time, so neither the resync loop nor a
 * restart repeats the failing request before then; a success forgets it.
 *
 * A deployment deleted on GitHub by a person is not a refusal: the publisher forgot it, and the
 * publish runs again. For the target's own deployment that creates a new one (said in the log), once:
 * if GitHub answers 404 for that one too, it is a refusal. An older deployment being superseded is
 * just gone (its `inactive` is done).
 */
export class GuardedPublisher<R = PublishResult> {
  constructor(private readonly o: GuardedPublisherOptions<R>) {}

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<R> {
    const { refusals, now } = this.o;
    const keys = refusalKeys(target);
    const held = refusals.active([keys.repo, keys.deployment], now());
    if (held !== undefined) throw new RefusedByForge(held);
    try {
      const result = await this.publishPastDeletions(target, origin, desired, description);
      refusals.clear([keys.repo, keys.deployment]);
      return result;
    } catch (err) {
      const refusal = this.o.classify ? this.o.classify(err, target, now()) : refusalOf(err, target, this.o.auth, now());
      if (refusal === undefined) throw err;
      const stored = refusals.record(refusal, now());
      // Nothing was created: the next attempt starts with a fresh find-or-create (its list call finds any earlier one).
      this.o.deployments.removeProvisional(target);
      this.o.log.warn(
        { code: stored.code, reason: stored.reason, retryAt: new Date(stored.retryAt).toISOString() },
        `${this.o.forgeName ?? 'GitHub'} refused; not retried before the retry time`,
      );
      throw new RefusedByForge(stored, { cause: err });
    }
  }

  /**
   * Publishes; each deployment found deleted on GitHub (its row forgotten) makes it publish again. Each
   * identity is found deleted once at most: the second time (the target's new deployment) it stands.
   */
  private async publishPastDeletions(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<R> {
    const deleted = new Set<string>();
    for (;;) {
      try {
        return await this.o.publisher.publish(target, origin, desired, description);
      } catch (err) {
        if (!(err instanceof DeploymentDeleted)) throw err;
        const key = identityKey(err.identity);
        if (deleted.has(key)) throw err;
        deleted.add(key);
        const what = `deployment ${err.deploymentId} was deleted on GitHub`;
        if (key === identityKey(target)) this.o.log.warn({ deploymentId: err.deploymentId }, `${what}; creating a new one`);
        else this.o.log.info({ deploymentId: err.deploymentId, sha: err.identity.sha }, `${what}; it needs no inactive`);
      }
    }
  }
}
