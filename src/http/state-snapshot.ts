import type { Forge } from '../forges/forge.js';
import type { Metrics } from '../common/metrics.js';
import type { KubeHealth } from '../health/kube-health.js';
import type { Readiness } from '../health/readiness.js';
import type { DeploymentStore } from '../store/deployment-store.js';
import type { QueueStore } from '../store/queue-store.js';
import type { RefusalStore } from '../store/refusal-store.js';
import type { SourceStore } from '../store/source-store.js';
import type { Trust } from '../metadata/repository-trust.js';
import type { Section, SectionPlace } from '../features/feature.js';

export interface StatusDeps {
  queue: QueueStore;
  deployments: DeploymentStore;
  sources: SourceStore;
  metrics: Metrics;
  now: () => number;
  readiness: () => Readiness;
  activeReconciles: () => number;
  /** The configured forges: each has its section of /state (credentials, pauses, refusals) and its gauges. */
  forges?: readonly Forge[];
  /** Every forge's refusals waiting for their late retry, counted in /metrics. */
  refusals?: RefusalStore;
  /** `STATE_TOKEN`: when set, /state answers only requests with `Authorization: Bearer <token>` (`_FILE`: read per request). */
  stateToken?: string | (() => Promise<string>);
  /** When the Kubernetes API last answered, for /metrics. */
  kubeHealth?: () => KubeHealth;
  /** `DRY_RUN`: forge writes are logged, not sent; /state says so at the top (false when unset). */
  dryRun?: boolean;
  /** Requests per client address per minute to /readyz, and to /state with `/`; default STATUS_RATE_PER_MINUTE. */
  statusRatePerMinute?: number;
  /** The trust boundary (ALLOWED_REPOSITORIES): open, or an allow-list of so many patterns. */
  trust?: Trust;
  /** This bridge's version and the cluster it reports for (`CLUSTER_NAME`): the status page's header line. */
  identity?: { version: string; cluster: string };
  /**
   * The sections beyond the spine's own, in order: each feature's (pull request comments, the DORA figures) and the
   * bridge's (`bridgeSection`: the clusters read, the storage, the registry cache).
   */
  sections?: readonly Section[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What /state serves and the status page (`GET /`) renders: one snapshot. */
export function stateSnapshot(deps: StatusDeps, filter: { repository?: string; environment?: string } = {}) {
  const { repository, environment } = filter;
  const forges = deps.forges ?? [];
  const byName = new Map(forges.map((f) => [f.name, f]));
  const sections = (deps.sections ?? []).flatMap((f) => (f.state ? [f.state] : []));
  const fieldsAt = (place: SectionPlace) =>
    Object.assign({}, ...sections.filter((x) => x.place === place).map((x) => x.fields(deps.now()))) as Record<string, unknown>;
  return {
    ...(deps.identity ? { bridge: deps.identity } : {}),
    dryRun: deps.dryRun ?? false,
    ...(deps.trust ? { trust: deps.trust } : {}),
    deployments: deps.deployments
      .list(500, { ...(repository ? { repository } : {}), ...(environment ? { environment } : {}) })
      .map((d) => ({
        forge: d.forge,
        owner: d.owner,
        repo: d.repo,
        environment: d.environment,
        sha: d.sha,
        deploymentName: d.deploymentName,
        // In the neutral words of gdb_deployments; its id or status context, its state as its forge says it, its link.
        state: d.state ?? 'provisional',
        ...(byName.get(d.forge)?.describe(d) ?? { deploymentId: d.deploymentId, context: d.context, forgeState: d.state ?? 'provisional' }),
        description: d.description,
        workload: `${d.origin.workload.kind}/${d.origin.workload.namespace}/${d.origin.workload.name}`,
        container: d.origin.container,
        image: d.origin.image,
        fluxObject: `${d.origin.source.kind}/${d.origin.source.namespace}/${d.origin.source.name}`,
        updatedAt: iso(d.updatedAt),
        // What the features add to a row (its pull request).
        ...(Object.assign({}, ...sections.map((x) => x.row?.(d))) as Record<string, unknown>),
      })),
    ...fieldsAt('deployments'),
    skipped: deps.sources.listSkips().map((s) => ({
      fluxObject: `${s.source.kind}/${s.source.namespace}/${s.source.name}`,
      workload: `${s.workload.kind}/${s.workload.namespace}/${s.workload.name}`,
      container: s.container || null,
      code: s.code,
      reason: s.reason,
      since: iso(s.since),
    })),
    fluxObjects: deps.sources.list().map((s) => ({ ...s, lastSeen: iso(s.lastSeen) })),
    queue: {
      ...deps.queue.counts(),
      running: deps.activeReconciles(),
      items: deps.queue.list().map((q) => ({ ...q, notBefore: iso(q.notBefore) })),
    },
    ...fieldsAt('queue'),
    readiness: deps.readiness(),
    ...fieldsAt('readiness'),
    ...Object.fromEntries(forges.map((f) => [f.name, f.state()])),
  };
}

export type StateSnapshot = ReturnType<typeof stateSnapshot>;
