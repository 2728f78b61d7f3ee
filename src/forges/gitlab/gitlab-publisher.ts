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
import { identityOf, type Identity } from '../../lifecycle/identity.js';
import { environmentChanges, stopDecision } from './gitlab-environment-plan.js';
import { planGitLab, type GitLabDesired, type GitLabRow } from './gitlab-lifecycle.js';
import { CREATED_AS, findOwnDeployment } from './gitlab-recovery.js';
import { chooseRef } from './gitlab-ref.js';
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
  log: Logger;
  now: () => number;
  /** Called with each status GitLab accepted (a create, an update, a cancel at cleanup): the metric's one count. */
  onSent?: (state: DeliveryState) => void;
}

const pathOf = (r: { owner: string; repo: string }) => `${r.owner}/${r.repo}`;

export class GitLabPublisher {
  /** The ref per project and commit: the branches of a commit do not change what the bridge sends. */
  private readonly refs = new Map<string, { ref: string; tag: boolean }>();
  /** Environments this bridge reports previews into (per project and name), learned from publish. */
  private readonly transient = new Set<string>();

  constructor(private readonly deps: GitLabPublisherDeps) {}

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<GitLabPublishResult> {
    const { deployments, now } = this.deps;
    const id: Identity = { ...identityOf(target), forge: 'gitlab' };
    const path = pathOf(target);
    if (target.transientEnvironment) this.transient.add(`${path} ${target.environment}`);
    const sent: DeliveryState[] = [];
    const wanted: GitLabDesired = desired;
    let row = deployments.get(id);
    if (row !== undefined && row.deploymentId !== null && row.pendingState !== null) row = await this.readBack(id, row, path);
    // A row new now has nothing on GitLab yet; one left provisional (a crash, a lost answer) is looked for first.
    const fresh = row === undefined;
    if (row === undefined) row = deployments.insertProvisional(id, origin, now());
    let plan = planGitLab(fresh ? { kind: 'none' } : this.rowOf(row), wanted);
    if (plan?.call === 'recover') {
      row = await this.recover(id, row, path);
      plan = planGitLab(row.deploymentId === null ? { kind: 'none' } : this.rowOf(row), wanted);
    }
    if (plan === undefined || plan.call === 'recover') return { deploymentId: row.deploymentId ?? 0, sent };
    if (plan.call === 'create') {
      const ref = await this.refOf(path, target.sha);
      const created = await this.deps.port.createDeployment(path, {
        environment: target.environment,
        sha: target.sha,
        ...ref,
        status: plan.status,
      });
      deployments.setDeploymentId(id, created.id, NEUTRAL[plan.status], now());
      this.recordSent(id, NEUTRAL[plan.status], description, sent);
      await this.shapeEnvironment(path, target);
      return { deploymentId: created.id, sent };
    }
    deployments.setPending(id, NEUTRAL[plan.status], now());
    await this.deps.port.updateDeployment(path, plan.deploymentId, plan.status);
    this.recordSent(id, NEUTRAL[plan.status], description, sent);
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
    const environment = await port.environment(path, row.environment);
    if (environment === null) return wrote;
    const own = new Set(deployments.list(500, { repository: path, environment: row.environment }).flatMap((r) => r.deploymentId ?? []));
    const decision = stopDecision({
      transient: this.transient.has(`${path} ${row.environment}`),
      workloadsLeft: others.length,
      environment,
      ownDeployments: own,
    });
    if (decision !== 'stop') {
      this.deps.log.info({ environment: row.environment, why: decision.leave }, 'GitLab environment left as it is');
      return wrote;
    }
    await port.stopEnvironment(path, environment.id);
    return true;
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
    if ('ambiguous' in found)
      throw new Error(
        `GitLab has ${found.ambiguous.length} deployments of ${row.sha.slice(0, 7)} to ${row.environment} by this token's user (${found.ambiguous.join(', ')}): give each workload its own environment`,
      );
    if ('none' in found) return row;
    this.deps.log.info({ deploymentId: found.found.id, environment: row.environment }, 'found the GitLab deployment a crashed create made');
    deployments.setDeploymentId(id, found.found.id, neutralOf(found.found.status), now());
    return deployments.get(id) ?? row;
  }

  /** The branch (or tag) a commit is deployed from: GitLab's branches holding it, the default branch first; cached. */
  private async refOf(path: string, sha: string): Promise<{ ref: string; tag: boolean }> {
    const key = `${path}@${sha}`;
    const cached = this.refs.get(key);
    if (cached !== undefined) return cached;
    const [branches, project] = await Promise.all([this.deps.port.branchesContaining(path, sha), this.deps.port.project(path)]);
    const choice = chooseRef({ workloadAnnotations: {}, fluxAnnotations: {}, branches, defaultBranch: project.default_branch });
    if ('lookup' in choice || 'problem' in choice)
      throw new Error(`${path}@${sha.slice(0, 7)}: ${'problem' in choice ? choice.problem : 'no ref'}`);
    const ref = { ref: choice.ref, tag: choice.tag };
    this.refs.set(key, ref);
    return ref;
  }

  /** The environment's URL and tier, with one PUT only when they differ from what GitLab has. */
  private async shapeEnvironment(path: string, target: ReportTarget): Promise<void> {
    const wanted = {
      ...(target.environmentUrl === undefined ? {} : { externalUrl: target.environmentUrl }),
      ...(target.productionEnvironment ? { tier: 'production' as const } : {}),
    };
    if (Object.keys(wanted).length === 0) return;
    const environment = await this.deps.port.environment(path, target.environment);
    const changes = environment === null ? undefined : environmentChanges(environment, wanted);
    if (environment !== null && changes !== undefined) await this.deps.port.updateEnvironment(path, environment.id, changes);
  }
}
