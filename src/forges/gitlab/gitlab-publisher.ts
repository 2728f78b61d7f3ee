/**
 * Reports a target to GitLab as a deployment, crash-safely, over the pure plan (`planGitLab`): a
 * provisional row before the create; after a crash, the deployment that create may have made is looked
 * for (`findOwnDeployment`: environment, commit, the token's user, not held by another row) before
 * another is created; a pending mark before each update, read back after a crash. running → running,
 * success → running and success → success are never sent. The ref is the branch (`chooseRef`), the
 * commit's branches cached. A closed preview's environment is stopped when its last workload is gone
 * and its latest deployment is this bridge's (`stopDecision`); anything else gets no write.
 */
import type { Logger } from 'pino';
import type { DeliveryState, DesiredState } from '../../lifecycle/status-plan.js';
import type { ReportTarget } from '../../metadata/resolve-target.js';
import type { DeploymentRow, DeploymentStore, Origin } from '../../store/deployment-store.js';
import type { EnvironmentKey, TransientEnvironmentStore } from '../../store/transient-store.js';
import { identityOf, type Identity } from '../../lifecycle/identity.js';
import { ALREADY_STOPPED, stopDecision, wantedEnvironment, type WantedEnvironment } from './gitlab-environment-plan.js';
import { GitLabEnvironmentSync, type EnvironmentSyncDeps } from './gitlab-environment-sync.js';
import { planGitLab, type GitLabDesired, type GitLabRow } from './gitlab-lifecycle.js';
import { AmbiguousRecovery, CREATED_AS, findOwnDeployment } from './gitlab-recovery.js';
import { GitLabRefs } from './gitlab-refs.js';
import type { GitLabPort } from './gitlab-side.js';
import type { GitLabStatus } from './gitlab-types.js';

/** GitLab's statuses in the deployments table's neutral words, and back. */
const NEUTRAL: Record<GitLabStatus, DeliveryState> = { running: 'in_progress', success: 'success', failed: 'failure', canceled: 'gone' };
const WIRE: Record<DeliveryState, GitLabStatus> = {
  pending: 'running',
  in_progress: 'running',
  success: 'success',
  failure: 'failed',
  error: 'failed',
  gone: 'canceled',
};

/** A GitLab status word as the bridge's neutral state (a CI job's `created`, `blocked`… read as running). */
export const neutralOf = (status: string): DeliveryState => (status in NEUTRAL ? NEUTRAL[status as GitLabStatus] : 'in_progress');
/** A neutral state in GitLab's words (for /state). */
export const wireOf = (state: DeliveryState): GitLabStatus => WIRE[state];

export interface GitLabPublishResult {
  deploymentId: number;
  sent: DeliveryState[];
}

export interface GitLabPublisherDeps {
  port: GitLabPort;
  deployments: Pick<DeploymentStore, 'get' | 'insertProvisional' | 'setDeploymentId' | 'setPending' | 'setState' | 'list'>;
  refusals: EnvironmentSyncDeps['refusals'];
  /** `GITLAB_AGENT_ID`: the environment is linked to the agent, the namespace and the Flux object. */
  agentId?: number | undefined;
  /** The preview environments reported into, kept across restarts (stopped when their last workload is gone). */
  transients: Pick<TransientEnvironmentStore, 'mark' | 'has' | 'forget'>;
  log: Logger;
  now: () => number;
  /** Called with each status GitLab accepted (a create, an update, a cancel at cleanup): the metric's one count. */
  onSent?: (state: DeliveryState) => void;
}

const pathOf = (r: { owner: string; repo: string }) => `${r.owner}/${r.repo}`;
const environmentOf = (r: { owner: string; repo: string; environment: string }): EnvironmentKey => ({
  forge: 'gitlab',
  owner: r.owner,
  repo: r.repo,
  environment: r.environment,
});

export class GitLabPublisher {
  private readonly environments: GitLabEnvironmentSync;
  private readonly refs: GitLabRefs;

  constructor(private readonly deps: GitLabPublisherDeps) {
    this.environments = new GitLabEnvironmentSync(deps);
    this.refs = new GitLabRefs(deps.port);
  }

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<GitLabPublishResult> {
    const { deployments, now } = this.deps;
    const id: Identity = { ...identityOf(target), forge: 'gitlab' };
    const path = pathOf(target);
    if (target.transientEnvironment) this.deps.transients.mark(environmentOf(target), now());
    const sent: DeliveryState[] = [];
    const wanted: GitLabDesired = desired;
    let row = deployments.get(id);
    if (row !== undefined && row.deploymentId !== null && row.pendingState !== null) row = await this.readBack(id, row, path);
    // A retired row whose workload is back: GitLab kept its status (success, failed) unless it was canceled.
    if (row !== undefined && row.deploymentId !== null && row.state === 'gone') row = await this.revive(id, row, path);
    // A row new now has nothing on GitLab yet; one left provisional (a crash, a lost answer) is looked for first.
    const fresh = row === undefined;
    if (row === undefined) row = deployments.insertProvisional(id, origin, now());
    let plan = planGitLab(fresh ? { kind: 'none' } : this.rowOf(row), wanted);
    if (plan?.call === 'recover') {
      row = await this.recover(id, row, path);
      plan = planGitLab(row.deploymentId === null ? { kind: 'none' } : this.rowOf(row), wanted);
    }
    if (plan === undefined || plan.call === 'recover') {
      // Nothing to send for the deployment; an environment update that failed before is tried again.
      if (row.deploymentId !== null) await this.environments.sync(path, target.environment, this.wanted(target, origin));
      return { deploymentId: row.deploymentId ?? 0, sent };
    }
    if (plan.call === 'create') {
      const ref = await this.refs.of(path, target);
      const created = await this.deps.port.createDeployment(path, {
        environment: target.environment,
        sha: target.sha,
        ...ref,
        status: plan.status,
      });
      deployments.setDeploymentId(id, created.id, NEUTRAL[plan.status], now());
      this.recordSent(id, NEUTRAL[plan.status], description, sent);
      await this.environments.sync(path, target.environment, this.wanted(target, origin));
      return { deploymentId: created.id, sent };
    }
    deployments.setPending(id, NEUTRAL[plan.status], now());
    await this.deps.port.updateDeployment(path, plan.deploymentId, plan.status);
    this.recordSent(id, NEUTRAL[plan.status], description, sent);
    await this.environments.sync(path, target.environment, this.wanted(target, origin));
    return { deploymentId: plan.deploymentId, sent };
  }

  /**
   * A workload gone: a deployment still running is canceled (it would show as running forever); a
   * finished one keeps its history. A transient environment whose last workload is gone is stopped,
   * unless its latest deployment is not this bridge's. False when nothing was written.
   */
  async retire(row: DeploymentRow, description: string): Promise<boolean> {
    const { deployments, now, port } = this.deps;
    const path = pathOf(row);
    let wrote = false;
    if (row.deploymentId !== null && row.state !== null) {
      const plan = planGitLab({ kind: 'known', deploymentId: row.deploymentId, status: wireOf(row.state) }, 'gone');
      if (plan?.call === 'update') {
        deployments.setPending(row, 'gone', now());
        await port.updateDeployment(path, plan.deploymentId, plan.status);
        this.deps.onSent?.(NEUTRAL[plan.status]);
        wrote = true;
      }
    }
    deployments.setState(row, 'gone', description, now());
    const others = deployments
      .list(500, { repository: path, environment: row.environment })
      .filter(
        (r) =>
          r.forge === 'gitlab' && !(r.sha === row.sha && r.deploymentName === row.deploymentName) && r.state !== 'gone' && r.state !== null,
      );
    const key = environmentOf(row);
    const transient = this.deps.transients.has(key);
    // Nothing to stop (not a preview, or others still report into it): no need to read the environment.
    if (!transient || others.length > 0) return wrote;
    const environment = await port.environment(path, row.environment);
    if (environment === null) {
      this.deps.transients.forget(key);
      return wrote;
    }
    const own = new Set(deployments.list(500, { repository: path, environment: row.environment }).flatMap((r) => r.deploymentId ?? []));
    const decision = stopDecision({
      transient,
      workloadsLeft: others.length,
      environment,
      ownDeployments: own,
    });
    if (decision !== 'stop') {
      if (decision.leave === ALREADY_STOPPED) this.deps.transients.forget(key);
      this.deps.log.info({ environment: row.environment, why: decision.leave }, 'GitLab environment left as it is');
      return wrote;
    }
    await port.stopEnvironment(path, environment.id);
    // The preview's end as GitLab shows it: counted with the statuses (gdb_statuses_sent_total{state="gone"}).
    this.deps.onSent?.('gone');
    this.deps.transients.forget(key);
    return true;
  }

  private wanted(target: ReportTarget, origin: Origin): WantedEnvironment {
    return wantedEnvironment(target, origin, this.deps.agentId);
  }

  /** A status GitLab accepted: the row shows it, the publish reports it, the metric counts it. */
  private recordSent(id: Identity, state: DeliveryState, description: string, sent: DeliveryState[]): void {
    this.deps.deployments.setState(id, state, description, this.deps.now());
    sent.push(state);
    this.deps.onSent?.(state);
  }

  private rowOf(row: DeploymentRow): GitLabRow {
    if (row.deploymentId === null) return { kind: 'provisional' };
    return { kind: 'known', deploymentId: row.deploymentId, status: wireOf(row.state ?? 'in_progress') };
  }

  /** After a crash mid-update: whether GitLab took the pending status (its list in that status holds the deployment). */
  private async readBack(id: Identity, row: DeploymentRow, path: string): Promise<DeploymentRow> {
    const pending = row.pendingState;
    if (pending === null || row.deploymentId === null) return row;
    const listed = await this.deps.port.listDeployments(path, { environment: row.environment, status: wireOf(pending) });
    const took = listed.some((d) => d.id === row.deploymentId);
    this.deps.deployments.setState(id, took ? pending : row.state, row.description, this.deps.now());
    return this.deps.deployments.get(id) ?? row;
  }

  /** A retired row's deployment as GitLab has it now, so no refused transition is sent (success → success). */
  private async revive(id: Identity, row: DeploymentRow, path: string): Promise<DeploymentRow> {
    if (row.deploymentId === null) return row;
    const found = await this.deps.port.deployment(path, row.deploymentId);
    this.deps.deployments.setState(id, neutralOf(found.status), row.description, this.deps.now());
    return this.deps.deployments.get(id) ?? row;
  }

  /** A provisional row: the deployment its create made, if GitLab has one, adopted; else the row stays provisional. */
  private async recover(id: Identity, row: DeploymentRow, path: string): Promise<DeploymentRow> {
    const { port, deployments, now } = this.deps;
    const user = await port.user();
    const claimed = new Set(
      deployments
        .list(500, { repository: path, environment: row.environment })
        .flatMap((r) => (r.forge === 'gitlab' && r.deploymentId !== null ? [r.deploymentId] : [])),
    );
    const listed = (
      await Promise.all(CREATED_AS.map((status) => port.listDeployments(path, { environment: row.environment, status })))
    ).flat();
    const found = findOwnDeployment(listed, { environment: row.environment, sha: row.sha, userId: user.id, claimed });
    if ('ambiguous' in found) throw new AmbiguousRecovery(row.environment, row.sha, found.ambiguous);
    if ('none' in found) return row;
    this.deps.log.info({ deploymentId: found.found.id, environment: row.environment }, 'found the GitLab deployment a crashed create made');
    deployments.setDeploymentId(id, found.found.id, neutralOf(found.found.status), now());
    return deployments.get(id) ?? row;
  }
}
