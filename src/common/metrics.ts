import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { controllerVersion } from './version.js';

/** What `gdb_build_info` says about the running build. */
export interface BuildInfo {
  version: string;
  /** The git commit built (the image's `BUILD_REVISION`), `unknown` outside an image. */
  commit: string;
}

/**
 * prom-client's default gauges whose names end in `_total`, a counter's suffix: each is the sum over
 * `type` of the gauge without it (`nodejs_active_handles` …), so dropping them loses nothing.
 */
const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_resources_total', 'nodejs_active_handles_total', 'nodejs_active_requests_total'];

/**
 * Every metric the bridge exports, on its own registry (no global state). The process and Node.js
 * metrics keep their stock names (`process_*`, `nodejs_*`) so the usual Node.js dashboards find them;
 * the bridge's own start with `gdb_`.
 */
export function createMetrics(build: BuildInfo = { version: controllerVersion(), commit: 'unknown' }) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  const registers = [registry];
  /** A gauge of the write budget, by forge and credential scope. */
  const scopeGauge = (name: string, help: string) =>
    new Gauge({ name, help: `${help}, by forge and credential scope`, labelNames: ['forge', 'scope'], registers });
  new Gauge({
    name: 'gdb_build_info',
    help: 'Always 1; the labels name the running build (version, git commit, Node.js version)',
    labelNames: ['version', 'commit', 'node'],
    registers,
  }).set({ version: build.version, commit: build.commit, node: process.version }, 1);
  return {
    registry,
    events: new Counter({
      name: 'gdb_events_total',
      help: 'Webhook requests by involved kind and result',
      labelNames: ['kind', 'result'],
      registers,
    }),
    reconciles: new Counter({
      name: 'gdb_reconciles_total',
      help: 'Flux object reconciles by outcome (ok; error: failed, retried with backoff; waiting: only waited for its turn, a look-up batch or the write budget)',
      labelNames: ['outcome'],
      registers,
    }),
    reconcileSeconds: new Histogram({
      name: 'gdb_reconcile_duration_seconds',
      help: 'Time to reconcile one Flux object',
      registers,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
    }),
    forgeRequests: new Counter({
      name: 'gdb_forge_requests_total',
      help: 'Forge requests by forge, operation (an API route or a named call; `any`: refused before one was chosen) and status (an HTTP status; paused: not sent; timeout, network: no answer)',
      labelNames: ['forge', 'operation', 'status'],
      registers,
    }),
    forgePauses: new Counter({
      name: 'gdb_forge_pauses_total',
      help: 'Pauses of forge requests by forge and cause (primary, secondary rate limit: of one credential scope or of the whole forge; credentials: of all its work)',
      labelNames: ['forge', 'kind'],
      registers,
    }),
    forgePausedUntil: new Gauge({
      name: 'gdb_forge_paused_until_timestamp_seconds',
      help: "End of the running pause of a forge's requests (Unix time) by forge and credential scope (`all`: every request of the forge; a forge with per-credential budgets adds one per scope, e.g. token, app, installation N); 0 when none",
      labelNames: ['forge', 'scope'],
      registers,
    }),
    forgeRateLimitRemaining: new Gauge({
      name: 'gdb_forge_rate_limit_remaining',
      help: "Requests left in a forge's budget, as it last reported, by forge, credential scope and resource (only forges that report budgets)",
      labelNames: ['forge', 'scope', 'resource'],
      registers,
    }),
    forgeCredentialsOk: new Gauge({
      name: 'gdb_forge_credentials_ok',
      help: "1 while the forge accepts the bridge's credentials (0: rejected; unchecked or unreachable count as 1), by forge",
      labelNames: ['forge'],
      registers,
    }),
    forgeRefusals: new Gauge({
      name: 'gdb_forge_refusals',
      help: 'Forge refusals (an answer retrying soon will not change: 404, 403, 409, 422) waiting for their late retry, by forge and class (`<forge>_<kind>`)',
      labelNames: ['forge', 'code'],
      registers,
    }),
    forgeWriteBacklog: scopeGauge('gdb_forge_write_backlog', 'Writes waiting for their turn in the write budget'),
    forgeWriteBacklogOldest: scopeGauge(
      'gdb_forge_write_backlog_oldest_seconds',
      'How long the longest-waiting write of the backlog has waited (0: none waiting)',
    ),
    forgeWriteBacklogDrain: scopeGauge(
      'gdb_forge_write_backlog_drain_seconds',
      "Time until the writes waiting now would all have gone at the budget's pace",
    ),
    forgeBudgetFreesAt: scopeGauge(
      'gdb_forge_budget_frees_at_timestamp_seconds',
      'When the write budget next has room (Unix time; now while it has)',
    ),
    registryRequests: new Counter({
      name: 'gdb_registry_lookups_total',
      help: 'Image metadata look-ups by outcome',
      labelNames: ['outcome'],
      registers,
    }),
    registryHttp: new Counter({
      name: 'gdb_registry_http_requests_total',
      help: 'HTTP requests to registries and their token services by method and status (0: no answer)',
      labelNames: ['method', 'status'],
      registers,
    }),
    registryCache: new Counter({
      name: 'gdb_registry_cache_lookups_total',
      help: 'Registry cache look-ups (tag → digest, digest → labels) by result',
      labelNames: ['cache', 'result'],
      registers,
    }),
    skips: new Counter({
      name: 'gdb_skips_total',
      help: 'Workload containers that became unreported (or changed reason), by reason class',
      labelNames: ['reason'],
      registers,
    }),
    skipped: new Gauge({
      name: 'gdb_skipped_workloads',
      help: 'Workload containers not reported now, by reason class',
      labelNames: ['reason'],
      registers,
    }),
    statuses: new Counter({
      name: 'gdb_statuses_sent_total',
      help: 'Statuses each forge accepted (a deployment status, a commit status, a deployment create or update, a GitLab environment stopped), by forge and state in the words of /state: in_progress, success, failure, gone (superseded, or its workload gone); none under DRY_RUN',
      labelNames: ['forge', 'state'],
      registers,
    }),
    prComments: new Counter({
      name: 'gdb_pull_request_comments_total',
      help: "Pull request comment work by forge and outcome (created, edited, found after a crash, unchanged, skipped, failed; deferred: held back by its budget class or a pause; foreign_commit: a row left out, its commit not the pull request's; list_capped: the comment list went past its cap)",
      labelNames: ['forge', 'outcome'],
      registers,
    }),
    eventToStatus: new Histogram({
      name: 'gdb_event_to_status_seconds',
      help: 'Time from a webhook event to the forge statuses sent by the reconcile it started (any forge)',
      registers,
      buckets: [0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
    }),
    queueDepth: new Gauge({ name: 'gdb_queue_depth', help: 'Queued Flux objects by state', labelNames: ['state'], registers }),
    queueOldestAge: new Gauge({
      name: 'gdb_queue_oldest_item_age_seconds',
      help: 'How long the queued Flux object due longest has waited to be taken (0: none is due)',
      registers,
    }),
    webhookResponses: new Counter({
      name: 'gdb_webhook_responses_total',
      help: 'Answers to POST /webhook by HTTP status code',
      labelNames: ['code'],
      registers,
    }),
    kubeLastSuccess: new Gauge({
      name: 'gdb_kube_last_success_timestamp_seconds',
      help: 'When the Kubernetes API last answered a read (Unix time; the start of the process before the first)',
      registers,
    }),
    fluxObjectsFailing: new Gauge({
      name: 'gdb_flux_objects_failing',
      help: 'Flux objects whose reconciles fail (since their last one that went through)',
      registers,
    }),
    fluxObjectsFailingLongest: new Gauge({
      name: 'gdb_flux_objects_failing_longest_seconds',
      help: 'How long the Flux object failing longest has been failing (0: none fails)',
      registers,
    }),
    storageErrors: new Counter({
      name: 'gdb_storage_errors_total',
      help: 'Database writes that failed for lack of storage (disk full, read-only, I/O error), by SQLite code',
      labelNames: ['code'],
      registers,
    }),
    storagePruned: new Counter({
      name: 'gdb_storage_pruned_rows_total',
      help: 'Database rows removed by the periodic prune (no purpose left: gone Flux objects, unused registry answers, old history), by table',
      labelNames: ['table'],
      registers,
    }),
    storageWritable: new Gauge({
      name: 'gdb_storage_writable',
      help: '1 while the database takes writes; 0 from a failed write until one goes through',
      registers,
    }),
    deploymentsByState: new Gauge({
      name: 'gdb_deployments',
      help: 'Cached deployments (on a forge without deployment objects: status contexts) by forge and state, in the words of /state (provisional: not on the forge yet)',
      labelNames: ['forge', 'state'],
      registers,
    }),
    ...doraMetrics(registers),
    ...clusterMetrics(registers),
  };
}

/** The remote (spoke) clusters of Flux objects with `spec.kubeConfig`, by cluster name (docs/fleet.md). */
function clusterMetrics(registers: Registry[]) {
  return {
    clusterUp: new Gauge({
      name: 'gdb_cluster_up',
      help: "1 while a remote cluster's API answers the bridge's reads, 0 while it does not (no credentials, refused, unreachable), by cluster",
      labelNames: ['cluster'],
      registers,
    }),
    clusterReadFailures: new Counter({
      name: 'gdb_cluster_read_failures_total',
      help: 'Reads of a remote cluster that failed, and Flux objects whose cluster could not be read, by cluster and reason class',
      labelNames: ['cluster', 'reason'],
      registers,
    }),
    clusterLastAnswer: new Gauge({
      name: 'gdb_cluster_last_answer_timestamp_seconds',
      help: "When a remote cluster's API last answered a read (Unix time), by cluster",
      labelNames: ['cluster'],
      registers,
    }),
  };
}

/** Buckets of the DORA durations, in seconds: a minute to four weeks. */
const DORA_BUCKETS = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 2 * 86_400, 7 * 86_400, 28 * 86_400];

/**
 * The four DORA keys over the last 30 days, per forge and counted environment (production ones, and those
 * `DORA_ENVIRONMENTS` adds: a set the operator bounds; previews never), summed over repositories (unbounded, so
 * no label; `gdb dora` prints them per repository). Recomputed from the database when its outcomes changed or a
 * minute passed (features/dora/dora-cache.ts), else the last figures stand: the histograms
 * hold the window's durations as they are now (read them with `histogram_quantile` as they are, not `rate()`).
 * A figure that cannot be known has no series.
 */
function doraMetrics(registers: Registry[]) {
  const labelNames = ['forge', 'environment'];
  return {
    doraDeploymentsPerDay: new Gauge({
      name: 'gdb_dora_deployments_per_day',
      help: 'Successful deployments per day over the last 30 days (or since the first recorded outcome), by forge and environment',
      labelNames,
      registers,
    }),
    doraChangeFailureRatio: new Gauge({
      name: 'gdb_dora_change_failure_ratio',
      help: 'Deployments of the last 30 days that failed or were rolled back within a day, over all finished ones, by forge and environment',
      labelNames,
      registers,
    }),
    doraLeadTimeClamped: new Gauge({
      name: 'gdb_dora_lead_time_clamped',
      help: "Lead times of the last 30 days that came out negative (the forge's and the cluster's clocks disagree) and count as 0, by forge and environment",
      labelNames,
      registers,
    }),
    doraLeadTime: new Histogram({
      name: 'gdb_dora_lead_time_seconds',
      help: "Lead time for changes of the last 30 days' successful deployments: the commit's committer date to the rollout complete, by forge and environment",
      labelNames,
      buckets: DORA_BUCKETS,
      registers,
    }),
    doraCommitTimeReads: new Counter({
      name: 'gdb_dora_commit_time_reads_total',
      help: "Reads of a counted commit's committer date from its forge (once per commit), by forge and result: known, missing (the forge does not hold it), failed (asked again later)",
      labelNames: ['forge', 'result'],
      registers,
    }),
    doraTimeToRestore: new Histogram({
      name: 'gdb_dora_time_to_restore_seconds',
      help: "Time to restore of the last 30 days' failed deployments: the failure to the next success in the environment, by forge and environment",
      labelNames,
      buckets: DORA_BUCKETS,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
