import type { Logger } from 'pino';
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { Forge } from '../metadata/forge-route.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { DeploymentRow, Origin } from '../store/deployment-store.js';
import type { PublishResult } from './deployment-publisher.js';

/** What one publish sent, on any forge: the states (in the forge-neutral words of the deployments table) and supersessions. */
export interface ForgePublished {
  sent: readonly string[];
  /** Older deployments turned inactive by this publish (GitHub only: Forgejo keeps older statuses as history). */
  superseded: number;
}

/** One forge's publishing, as the reconcile uses it. */
export interface ForgeLane {
  /** Behind the forge's refusal guard: a refusal arrives as RefusedByForge. */
  publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<ForgePublished>;
  /** Ends one deployment whose workload is gone (cleanup; not guarded, see `sweep`). */
  deactivate(row: DeploymentRow, description: string): Promise<boolean>;
}

/**
 * Sends each target to the forge its repository lives on (decided when the target was resolved) and
 * each cleanup to the forge its row was written to. A row of a forge no longer configured is left
 * alone, with a warning: nothing can end it.
 */
export class ForgeRouter {
  constructor(
    private readonly lanes: Partial<Record<Forge, ForgeLane>>,
    private readonly log: Logger,
  ) {}

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<ForgePublished> {
    return this.lane(target.forge).publish(target, origin, desired, description);
  }

  async deactivate(row: DeploymentRow, description: string): Promise<boolean> {
    const lane = this.lanes[row.forge];
    if (lane !== undefined) return lane.deactivate(row, description);
    this.log.warn(
      { forge: row.forge, repo: `${row.owner}/${row.repo}`, sha: row.sha },
      'cannot end a deployment: its forge is not configured',
    );
    return false;
  }

  private lane(forge: Forge): ForgeLane {
    const lane = this.lanes[forge];
    // Targets are only routed to configured forges (routeRepository): reaching here is a wiring fault.
    if (lane === undefined) throw new Error(`no ${forge} configured for this target`);
    return lane;
  }
}

/** A forge's guarded publisher and its plain one (cleanup), as a lane; `count` turns the result into what was sent. */
export function laneOf<R>(
  guarded: { publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<R> },
  plain: Pick<ForgeLane, 'deactivate'>,
  count: (result: R) => ForgePublished,
): ForgeLane {
  return {
    publish: async (target, origin, desired, description) => count(await guarded.publish(target, origin, desired, description)),
    deactivate: (row, description) => plain.deactivate(row, description),
  };
}

/** GitHub's lane: its guarded publisher for publishing, the plain one for cleanup. */
export function githubLane(
  guarded: { publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<PublishResult> },
  plain: Pick<ForgeLane, 'deactivate'>,
): ForgeLane {
  return laneOf(guarded, plain, (r) => ({ sent: r.sent, superseded: r.superseded.length }));
}
