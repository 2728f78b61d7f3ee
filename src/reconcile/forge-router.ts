import type { Logger } from 'pino';
import type { Forge, ForgePublished } from '../forges/forge.js';
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { ForgeName } from '../lifecycle/identity.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { DeploymentRow, Origin } from '../store/deployment-store.js';

/** What the router needs of a forge: its publishing and its cleanup. */
export type ForgeLane = Pick<Forge, 'publish' | 'retire' | 'prepare'>;

/**
 * Sends each target to the forge its repository lives on (decided when the target was resolved) and
 * each cleanup to the forge its row was written to. A row of a forge no longer configured is left
 * alone, with a warning: nothing can end it.
 */
export class ForgeRouter {
  constructor(
    private readonly lanes: Partial<Record<ForgeName, ForgeLane>>,
    private readonly log: Logger,
  ) {}

  /** A router over the configured forges, each under its name. */
  static over(forges: readonly Forge[], log: Logger): ForgeRouter {
    return new ForgeRouter(Object.fromEntries(forges.map((f) => [f.name, f])), log);
  }

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<ForgePublished> {
    const lane = this.lane(target.forge);
    return lane.publish(target, origin, desired, description);
  }

  /** Each forge's look-ahead for its targets of one reconcile, at once; never throws. */
  async prepare(targets: readonly ReportTarget[]): Promise<void> {
    const byForge = new Map<ForgeName, ReportTarget[]>();
    for (const t of targets) {
      const mine = byForge.get(t.forge);
      if (mine) mine.push(t);
      else byForge.set(t.forge, [t]);
    }
    await Promise.all([...byForge].map(async ([forge, mine]) => this.lanes[forge]?.prepare?.(mine).catch(() => undefined)));
  }

  async retire(row: DeploymentRow, description: string): Promise<boolean> {
    const lane = this.lanes[row.forge];
    if (lane !== undefined) return lane.retire(row, description);
    this.log.warn(
      { forge: row.forge, repo: `${row.owner}/${row.repo}`, sha: row.sha },
      'cannot end a deployment: its forge is not configured',
    );
    return false;
  }

  private lane(forge: ForgeName): ForgeLane {
    const lane = this.lanes[forge];
    // Targets are only routed to configured forges (routeRepository): reaching here is a wiring fault.
    if (lane === undefined) throw new Error(`no ${forge} configured for this target`);
    return lane;
  }
}
