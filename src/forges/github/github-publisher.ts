import type { Logger } from 'pino';
import { ForgeError } from '../../common/errors.js';
import { definitelyRefused } from './call-error.js';
import { DeploymentDeleted, deletedOnGitHub } from './refusal-classify.js';
import type { CreateDeploymentBody, CreateStatusBody, DeploymentsPort, GhDeployment } from './github-types.js';
import { fromGitHubState, toGitHubState } from './github-states.js';
import { identityKey, identityOf, type Identity } from '../../lifecycle/identity.js';
import { payloadMatches } from './deployment-payload.js';
import { LookupQueued, type DeploymentLookups } from './deployment-lookups.js';
import {
  isSupersedable,
  planStatuses,
  restateInProgress,
  statusDescription,
  SUPERSEDED_PREFIX,
  type DeliveryState,
  type DesiredState,
} from '../../lifecycle/status-plan.js';
import type { ReportTarget } from '../../metadata/resolve-target.js';
import type { DeploymentRow, DeploymentStore, Origin } from '../../store/deployment-store.js';
import type { Turn, TurnClass } from './write-budget.js';

/** What a publish did, for logs, metrics and tests. */
export interface GitHubPublishResult {
  deploymentId: number;
  /** The states sent, in neutral words. */
  sent: DeliveryState[];
  superseded: number[];
  created: boolean;
}

export interface GitHubPublisherDeps {
  github: DeploymentsPort;
  deployments: DeploymentStore;
  log: Logger;
  now: () => number;
  /** The batched find before creates (deployment-lookups.ts); none: every find is one REST list call. */
  lookups?: Pick<DeploymentLookups, 'take' | 'join'>;
  /** Called with each status GitHub accepted (publish, supersession and cleanup alike): the metric's one count. */
  onSent?: (state: DeliveryState) => void;
}

/** A cached deployment that exists on GitHub: its id is known. */
type Published = DeploymentRow & { deploymentId: number };

/** The row with its GitHub id: rows the publisher reads back after writing the id, or that the cache lists as published, have one. */
function published(row: DeploymentRow | undefined, id: Identity): Published {
  if (row === undefined || row.deploymentId === null) throw new Error(`deployment cache: ${identityKey(id)} has no GitHub deployment id`);
  return { ...row, deploymentId: row.deploymentId };
}

/** The latest status GitHub lists first (newest first), in neutral words; `pending` is a state the bridge never sends. */
const latestState = (states: ReadonlyArray<{ state: string }>): DeliveryState | null => {
  const s = states[0]?.state;
  return s === undefined || s === 'pending' ? null : fromGitHubState(s);
};

/** A status to send: its state in neutral words, and the rest of GitHub's body. */
type StatusToSend = Omit<CreateStatusBody, 'state'> & { state: DeliveryState };

/** What a target's writes are worth under backlog: production, another environment, or a preview. */
const classOf = (t: Pick<ReportTarget, 'productionEnvironment' | 'transientEnvironment'>): TurnClass =>
  t.transientEnvironment ? 'preview' : t.productionEnvironment ? 'production' : 'environment';

/** A write's turn: `inactive` for endings, else its target's class; final for success and failure. */
const turnOf = (id: Identity, cls: TurnClass, state: DeliveryState | DesiredState, status = true): Turn => ({
  key: identityKey(id),
  class: state === 'gone' ? 'inactive' : cls,
  final: state === 'success' || state === 'failure' || state === 'error',
  // An `in_progress` or `inactive` status can wait under pressure; a create cannot (every status needs it).
  optional: status && (state === 'in_progress' || state === 'gone'),
});

/** How long a find that found nothing stands for a create the budget deferred (never sent): then it is read again. */
const FOUND_NOTHING_MS = 10 * 60_000;

/**
 * Brings GitHub to the desired state for one target, crash-safely:
 * provisional row → find (one list call) or create → persist id → statuses (each marked pending
 * before the POST) → supersede older commits of the same lineage on success.
 * After a crash, a provisional row or a pending mark makes it read GitHub first, so it never
 * creates a second deployment nor repeats a status.
 */
export class GitHubPublisher {
  /**
   * Provisional rows whose find found nothing and whose create was never sent (deferred or paused): the next
   * try creates without reading again. In memory only: after a restart the crash-safe find runs as before.
   */
  private readonly foundNothing = new Map<string, number>();

  constructor(private readonly deps: GitHubPublisherDeps) {}

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<GitHubPublishResult> {
    const { deployments, now } = this.deps;
    const id: Identity = { ...identityOf(target), forge: 'github' };
    const cached = deployments.get(id) ?? deployments.insertProvisional(id, origin, now());
    const cls = classOf(target);
    const created = cached.deploymentId === null && (await this.findOrCreate(target, cached, turnOf(id, cls, desired, false)));
    const row = await this.settled(published(deployments.get(id), id), turnOf(id, cls, desired));
    const { deploymentId } = row;
    const sent: DeliveryState[] = [];
    const text = statusDescription(description);
    const plan = restateInProgress(row.state, row.description, desired, text) ? ['in_progress' as const] : planStatuses(row.state, desired);
    for (const state of plan) {
      await this.sendStatus(id, deploymentId, turnOf(id, cls, state), {
        state,
        description: text,
        ...(target.environmentUrl ? { environment_url: target.environmentUrl } : {}),
        ...(target.logUrl ? { log_url: target.logUrl } : {}),
        // GitHub's auto_inactive knows no clusters nor workloads: `supersede` retires exactly this workload's older commits.
        auto_inactive: false,
      });
      sent.push(state);
    }
    // Also after a crash mid-supersession: any success re-checks its lineage (a local query).
    const superseded = deployments.get(id)?.state === 'success' ? await this.supersede(id, origin) : [];
    return { deploymentId, sent, superseded, created };
  }

  private async findOrCreate(target: ReportTarget, row: DeploymentRow, turn: Turn): Promise<boolean> {
    const { github, deployments, now, log } = this.deps;
    const repo = { owner: target.owner, repo: target.repo };
    const key = identityKey(row);
    const known = this.foundNothing.get(key);
    let listed = known !== undefined && known + FOUND_NOTHING_MS > now() ? known : undefined;
    let match: { id: number; state: DeliveryState | null } | undefined;
    if (listed === undefined) {
      const found = await this.find(target, key, turn);
      if (found === 'none') listed = now();
      else if (typeof found === 'number') listed = found;
      else match = found;
    }
    if (match) {
      deployments.setDeploymentId(row, match.id, match.state, now());
      log.info({ deploymentId: match.id }, 'adopted existing GitHub deployment');
      return false;
    }
    const body: CreateDeploymentBody = {
      ref: target.sha,
      environment: target.environment,
      description: target.description,
      auto_merge: false,
      required_contexts: [],
      payload: target.payload,
      production_environment: target.productionEnvironment,
      transient_environment: target.transientEnvironment,
      ...(target.task ? { task: target.task } : {}),
    };
    let d: GhDeployment;
    try {
      d = await github.createDeployment(repo, body, turn);
    } catch (err) {
      // Never sent (its turn had not come, or the scope is paused): the find stands for the next try.
      if (err instanceof ForgeError && err.notSent) this.foundNothing.set(key, listed ?? now());
      throw err;
    }
    this.foundNothing.delete(key);
    deployments.setDeploymentId(row, d.id, null, now());
    if (d.id > 0) log.info({ deploymentId: d.id }, 'created GitHub deployment'); // DRY_RUN ids are negative: 'would create' was logged
    return true;
  }

  /**
   * The target's deployment on GitHub, or when it was found to have none ('none': now; a number: a batch's
   * time). A batched answer is taken when there is one; a look-up that joins a batch throws LookupQueued
   * (nothing sent: the work comes back when the batch is answered); else the REST find, one list call.
   */
  private async find(
    target: ReportTarget,
    key: string,
    turn: Turn,
  ): Promise<{ id: number; state: DeliveryState | null } | number | 'none'> {
    const { github, lookups } = this.deps;
    const batched = lookups?.take(key);
    if (batched !== undefined) return batched.kind === 'found' ? batched : batched.at;
    const due = lookups?.join(key, target);
    if (due !== undefined) throw new LookupQueued(due);
    const repo = { owner: target.owner, repo: target.repo };
    const existing = await github.listDeployments(
      repo,
      { sha: target.sha, environment: target.environment, ...(target.task ? { task: target.task } : {}) },
      turn,
    );
    const match = existing.find((d) => payloadMatches(d.payload, target));
    if (!match) return 'none';
    return { id: match.id, state: latestState(await github.listStatuses(repo, match.id, turn)) };
  }

  /** The row with nothing pending: after a crash between marking a status and recording it, GitHub says whether it arrived. */
  private async settled(row: Published, turn: Turn): Promise<Published> {
    if (row.pendingState === null) return row;
    const statuses = await this.held(row, row.deploymentId, () =>
      this.deps.github.listStatuses({ owner: row.owner, repo: row.repo }, row.deploymentId, turn),
    );
    const latest = latestState(statuses);
    if (latest === row.pendingState) this.deps.deployments.setState(row, latest, row.description, this.deps.now());
    else this.deps.deployments.setPending(row, null, this.deps.now());
    return published(this.deps.deployments.get(row), row);
  }

  private async sendStatus(id: Identity, deploymentId: number, turn: Turn, body: StatusToSend): Promise<void> {
    const { github, deployments, now, log } = this.deps;
    deployments.setPending(id, body.state, now());
    try {
      await this.held(id, deploymentId, () =>
        github.createStatus({ owner: id.owner, repo: id.repo }, deploymentId, { ...body, state: toGitHubState(body.state) }, turn),
      );
    } catch (err) {
      // Never sent (paused) or answered with a 4xx: GitHub has no such status, so nothing is left to settle.
      if (definitelyRefused(err)) deployments.setPending(id, null, now());
      throw err;
    }
    deployments.setState(id, body.state, body.description ?? null, now());
    this.deps.onSent?.(body.state);
    // A dry run's pretend deployments have negative ids; its "would send" line was logged already.
    if (deploymentId < 0) return;
    log.info(
      {
        owner: id.owner,
        repo: id.repo,
        environment: id.environment,
        sha: id.sha,
        deploymentName: id.deploymentName,
        deploymentId,
        state: toGitHubState(body.state),
      },
      'deployment status sent',
    );
  }

  /** A call on a deployment whose id the bridge holds: a 404 means it was deleted on GitHub, and its row is forgotten. */
  private async held<T>(id: Identity, deploymentId: number, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      const deleted = deletedOnGitHub(err, id, deploymentId);
      if (deleted === undefined) throw err;
      this.deps.deployments.forget(id);
      throw deleted;
    }
  }

  /** Ends one live or unfinished deployment whose workload is gone (cleanup), crash-safely; one deleted on GitHub is done. */
  async retire(row: DeploymentRow, description: string): Promise<boolean> {
    try {
      const turn = turnOf(row, 'inactive', 'gone');
      const current = await this.settled(published(row, row), turn);
      if (!isSupersedable(current.state)) return false;
      await this.sendStatus(current, current.deploymentId, turn, { state: 'gone', description: statusDescription(description) });
      return true;
    } catch (err) {
      if (!(err instanceof DeploymentDeleted)) throw err;
      this.deps.log.info(
        { deploymentId: err.deploymentId, sha: row.sha },
        `deployment ${err.deploymentId} was deleted on GitHub: nothing left to end`,
      );
      return false;
    }
  }

  /**
   * Older commits of the same workload that were live (or never finished) become inactive, by the bridge's
   * own write. GitHub's auto_inactive (always turned off) would retire every older success of the
   * environment: other clusters' live deployments and sibling workloads, which this bridge does not know.
   */
  private async supersede(id: Identity, origin: Origin): Promise<number[]> {
    const out: number[] = [];
    // Only an older commit of the same workload is superseded. Two workloads sharing a lineage (one repo,
    // no deployment-name) each run their own commit: superseding across them would flip both forever.
    // The lineage is this bridge's own cache: it never lists another cluster's deployments.
    const sameWorkload = (r: DeploymentRow) =>
      r.origin.workload.kind === origin.workload.kind &&
      r.origin.workload.namespace === origin.workload.namespace &&
      r.origin.workload.name === origin.workload.name;
    for (const row of this.deps.deployments.lineage(id).filter(sameWorkload)) {
      const turn = turnOf(row, 'inactive', 'gone');
      const older = await this.settled(published(row, row), turn);
      if (!isSupersedable(older.state)) continue;
      await this.sendStatus(older, older.deploymentId, turn, {
        state: 'gone',
        description: statusDescription(`${SUPERSEDED_PREFIX} ${id.sha.slice(0, 7)}`),
      });
      out.push(older.deploymentId);
    }
    return out;
  }
}
