import type { Logger } from 'pino';
import type { DesiredState } from '../../lifecycle/status-plan.js';
import type { ReportTarget } from '../../metadata/resolve-target.js';
import type { DeploymentRow, DeploymentStore, Origin } from '../../store/deployment-store.js';
import { identityOf, type Identity } from '../../lifecycle/identity.js';
import type { CommitStatusPublisher } from './commit-status-publisher.js';
import { statusContext, type ContextTemplate } from './status-context.js';
import type { SentPhase } from './commit-status-plan.js';

/** What one Forgejo publish did. */
export interface ForgejoPublishResult {
  context: string;
  sent: SentPhase[];
  /** True when the forge was read first (a context new to the cache, or one left pending by a crash). */
  read: boolean;
}

export interface ForgejoPublisherDeps {
  statuses: Pick<CommitStatusPublisher, 'publish' | 'lookAhead'>;
  deployments: Pick<DeploymentStore, 'get' | 'insertProvisional' | 'lineage' | 'forget'>;
  template: ContextTemplate;
  log: Logger;
  now: () => number;
}

/**
 * The status text: what runs (the image's version label, else its digest, else its name and tag) and
 * where, then the verdict, e.g. `1.4.2 on eu-1 · Rollout complete`; the verdict's tail is what the
 * 140-character cut (in the status body) takes, never the version or the cluster.
 */
export function statusText(target: ReportTarget, verdict: string): string {
  const version = target.payload.version;
  const digest = target.payload.digest;
  const what =
    typeof version === 'string'
      ? version
      : typeof digest === 'string'
        ? digest.replace(/^(sha256:[0-9a-f]{12}).*$/, '$1')
        : target.image.slice(target.image.lastIndexOf('/') + 1);
  return `${what} on ${target.cluster} · ${verdict}`;
}

/**
 * Reports a target to Forgejo as a commit status: one context per (environment, deployment name,
 * cluster), kept in the deployments table (so cleanup, /state and metrics see it like a GitHub
 * deployment) and carried out by the crash-safe `CommitStatusPublisher`. Forgejo has no `inactive`:
 * when a newer commit succeeds, the older commit's status stays as it is, as history, and the cache
 * forgets it so cleanup never ends it; a deployment that is gone gets one last status (`deactivate`).
 */
export class ForgejoPublisher {
  constructor(private readonly deps: ForgejoPublisherDeps) {}

  async publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<ForgejoPublishResult> {
    const { deployments, now } = this.deps;
    const id: Identity = { ...identityOf(target), forge: 'forgejo' };
    // A row made earlier keeps its context: a changed template applies to commits reported after the change.
    const row = deployments.get(id) ?? deployments.insertProvisional(id, origin, now(), this.contextOf(target));
    const context = row.context ?? this.contextOf(target);
    const r = await this.deps.statuses.publish(
      {
        owner: target.owner,
        repo: target.repo,
        sha: target.sha,
        context,
        ...(target.environmentUrl ? { targetUrl: target.environmentUrl } : {}),
      },
      desired,
      statusText(target, description),
    );
    if (deployments.get(id)?.state === 'success') this.keepOlderAsHistory(id, origin);
    return { context, ...r };
  }

  /**
   * Before a reconcile publishes these targets one by one: the contexts that would each read their commit's
   * statuses first are looked up together, one read per commit (CommitStatusPublisher.lookAhead). Never throws.
   */
  async prepare(targets: readonly ReportTarget[]): Promise<void> {
    const keys = targets.flatMap((t) => {
      try {
        const row = this.deps.deployments.get({ ...identityOf(t), forge: 'forgejo' });
        return [{ owner: t.owner, repo: t.repo, sha: t.sha, context: row?.context ?? this.contextOf(t) }];
      } catch {
        return []; // a target without a context: its publish says why
      }
    });
    await this.deps.statuses.lookAhead(keys);
  }

  /** Ends a deployment whose workload is gone: one last status (success, "Deployment gone: …", no link). */
  async retire(row: DeploymentRow, description: string): Promise<boolean> {
    if (row.context === null) throw new Error(`Forgejo deployment ${row.owner}/${row.repo}@${row.sha} has no status context`);
    const r = await this.deps.statuses.publish(
      { owner: row.owner, repo: row.repo, sha: row.sha, context: row.context },
      'gone',
      description,
    );
    return r.sent.length > 0;
  }

  private contextOf(target: ReportTarget): string {
    return statusContext(this.deps.template, { environment: target.environment, deploymentName: target.task, cluster: target.cluster });
  }

  /** Older commits of the same workload and lineage leave the cache; their statuses stay on Forgejo unchanged. */
  private keepOlderAsHistory(id: Identity, origin: Origin): void {
    const w = origin.workload;
    for (const older of this.deps.deployments.lineage(id)) {
      const o = older.origin.workload;
      if (o.kind !== w.kind || o.namespace !== w.namespace || o.name !== w.name || older.pendingState !== null) continue;
      this.deps.deployments.forget(older);
      this.deps.log.info(
        { sha: older.sha, context: older.context, by: id.sha },
        'older commit superseded: its Forgejo status stays as history',
      );
    }
  }
}
