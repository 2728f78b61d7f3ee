import type { Logger } from 'pino';
import { identityKey, type Identity } from '../lifecycle/identity.js';
import { REFUSAL_RETRY_MS, refusalKeys, type Refusal, type RefusalCode } from '../lifecycle/refusal.js';
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { DeploymentStore, Origin } from '../store/deployment-store.js';
import type { Publishes } from './forge.js';
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

/** A forge's refusals of one failure, each remembered until its late retry: `(key, code, reason)` → the Refusal. */
export function refusalFor(forge: string, status: number | null, now: number): (key: string, code: RefusalCode, reason: string) => Refusal {
  return (key, code, reason) => ({ forge, key, code, reason, status, retryAt: now + REFUSAL_RETRY_MS });
}

/** Sorts a failure: the refusal to remember, or undefined when retrying soon may help. */
export type RefusalClassifier = (err: unknown, target: ReportTarget, now: number) => Refusal | undefined;

/** A deployment found deleted on the forge by a person (its row forgotten): which one. */
export interface DeletedElsewhere {
  identity: Identity;
  deploymentId: number;
}

export interface GuardedPublisherOptions<R> {
  publisher: Publishes<R>;
  refusals: RefusalStore;
  deployments: Pick<DeploymentStore, 'removeProvisional'>;
  /** The forge's own classifier (`githubRefusalOf`, `forgejoRefusalOf`, …). */
  classify: RefusalClassifier;
  /** Names the forge in log lines (its title). */
  forge: string;
  /** On a forge whose deployments people can delete (GitHub): the deletion a failure reports, else undefined. */
  deletedOf?: (err: unknown) => DeletedElsewhere | undefined;
  /** A refusal after which the provisional row stays (the forge may hold what its create made: the retry looks for it again). */
  keepsProvisional?: (err: unknown) => boolean;
  log: Logger;
  now: () => number;
}

/**
 * Publishes unless the forge refused the target's repository or deployment recently. A refusal (on
 * GitHub 404, 403, 409, 422) is remembered in SQLite with a late retry time, so neither the resync loop
 * nor a restart repeats the failing request before then; a success forgets it. Every forge's publisher
 * sits behind one.
 *
 * A deployment deleted on the forge by a person (`deletedOf`) is not a refusal: the publisher forgot it,
 * and the publish runs again. For the target's own deployment that creates a new one (said in the log),
 * once: if the forge answers 404 for that one too, it is a refusal. An older deployment being superseded
 * is just gone (its end is done).
 */
export class GuardedPublisher<R> {
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
      const refusal = this.o.classify(err, target, now());
      if (refusal === undefined) throw err;
      const stored = refusals.record(refusal, now());
      // Nothing was created: the next attempt starts with a fresh find-or-create (its list call finds any earlier one).
      if (this.o.keepsProvisional?.(err) !== true) this.o.deployments.removeProvisional(target);
      this.o.log.warn(
        { code: stored.code, reason: stored.reason, retryAt: new Date(stored.retryAt).toISOString() },
        `${this.o.forge} refused; not retried before the retry time`,
      );
      throw new RefusedByForge(stored, { cause: err });
    }
  }

  /** The publisher's look-ahead for the targets not held by a refusal (those send nothing); its failures are the publishes' own. */
  async prepare(targets: readonly ReportTarget[]): Promise<void> {
    const { refusals, now, publisher } = this.o;
    if (publisher.prepare === undefined) return;
    const open = targets.filter((t) => {
      const keys = refusalKeys(t);
      return refusals.active([keys.repo, keys.deployment], now()) === undefined;
    });
    if (open.length > 0) await publisher.prepare(open).catch(() => undefined);
  }

  /**
   * Publishes; each deployment found deleted on the forge (its row forgotten) makes it publish again. Each
   * identity is found deleted once at most: the second time (the target's new deployment) it stands.
   */
  private async publishPastDeletions(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<R> {
    const deleted = new Set<string>();
    for (;;) {
      try {
        return await this.o.publisher.publish(target, origin, desired, description);
      } catch (err) {
        const gone = this.o.deletedOf?.(err);
        if (gone === undefined) throw err;
        const key = identityKey(gone.identity);
        if (deleted.has(key)) throw err;
        deleted.add(key);
        const what = `deployment ${gone.deploymentId} was deleted on ${this.o.forge}`;
        if (key === identityKey(target)) this.o.log.warn({ deploymentId: gone.deploymentId }, `${what}; creating a new one`);
        else this.o.log.info({ deploymentId: gone.deploymentId, sha: gone.identity.sha }, `${what}; it needs no inactive`);
      }
    }
  }
}
