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
    reconciles: new Counter({ name: 'gdb_reconciles_total', help: 'Source reconciles by outcome', labelNames: ['outcome'], registers }),
    reconcileSeconds: new Histogram({
      name: 'gdb_reconcile_duration_seconds',
      help: 'Time to reconcile one Flux source',
      registers,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
    }),
    github: new Counter({
      name: 'gdb_github_requests_total',
      help: 'GitHub requests by endpoint and status (paused: not sent; timeout, network: no answer)',
      labelNames: ['endpoint', 'status'],
      registers,
    }),
    githubPauses: new Counter({
      name: 'gdb_github_pauses_total',
      help: 'Pauses of GitHub requests by cause (primary, secondary rate limit: of one credential scope; credentials: of all)',
      labelNames: ['kind'],
      registers,
    }),
    githubPausedUntil: new Gauge({
      name: 'gdb_github_paused_until_timestamp_seconds',
      help: 'End of the running pause of GitHub requests (Unix time) by credential scope (token, app, installation N); scope "all": of every request (rejected credentials, or a token\'s rate limit), 0 when none',
      labelNames: ['scope'],
      registers,
    }),
    githubRemaining: new Gauge({
      name: 'gdb_github_rate_limit_remaining',
      help: 'GitHub requests left in the budget, as last reported, by credential scope and resource',
      labelNames: ['scope', 'resource'],
      registers,
    }),
    githubCredentialsOk: new Gauge({
      name: 'gdb_github_credentials_ok',
      help: '1 while GitHub accepts the credentials (0: rejected; unchecked or unreachable count as 1)',
      registers,
    }),
    githubRefusals: new Gauge({
      name: 'gdb_github_refusals',
      help: 'Forge refusals (404, 403, 409, 422) waiting for their late retry, by class (github_*, forgejo_*)',
      labelNames: ['code'],
      registers,
    }),
    forgejo: new Counter({
      name: 'gdb_forgejo_requests_total',
      help: 'Forgejo requests by operation and status (paused: not sent; timeout, network: no answer)',
      labelNames: ['operation', 'status'],
      registers,
    }),
    forgejoPauses: new Counter({
      name: 'gdb_forgejo_pauses_total',
      help: 'Pauses of all Forgejo work by cause (secondary: a 429 or 503 with Retry-After; credentials)',
      labelNames: ['kind'],
      registers,
    }),
    forgejoPausedUntil: new Gauge({
      name: 'gdb_forgejo_paused_until_timestamp_seconds',
      help: 'End of the current pause of Forgejo work (Unix time); 0 when not paused',
      registers,
    }),
    forgejoCredentialsOk: new Gauge({
      name: 'gdb_forgejo_credentials_ok',
      help: '1 while Forgejo accepts FORGEJO_TOKEN (0: rejected; unchecked or unreachable count as 1)',
      registers,
    }),
    gitlab: new Counter({
      name: 'gdb_gitlab_requests_total',
      help: 'GitLab requests by operation and status (paused: not sent; timeout, network: no answer)',
      labelNames: ['operation', 'status'],
      registers,
    }),
    gitlabPauses: new Counter({
      name: 'gdb_gitlab_pauses_total',
      help: 'Pauses of all GitLab work by cause (secondary: a 429 or 503 with Retry-After or RateLimit-Reset; credentials)',
      labelNames: ['kind'],
      registers,
    }),
    gitlabPausedUntil: new Gauge({
      name: 'gdb_gitlab_paused_until_timestamp_seconds',
      help: 'End of the current pause of GitLab work (Unix time); 0 when not paused',
      registers,
    }),
    gitlabCredentialsOk: new Gauge({
      name: 'gdb_gitlab_credentials_ok',
      help: '1 while GitLab accepts GITLAB_TOKEN (0: rejected; unchecked or unreachable count as 1)',
      registers,
    }),
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
      help: 'Statuses sent by forge (github: deployment statuses; forgejo: commit statuses, `gone` for a closed deployment) and state',
      labelNames: ['forge', 'state'],
      registers,
    }),
    prComments: new Counter({
      name: 'gdb_pull_request_comments_total',
      help: 'Pull request comment work by forge and outcome (created, edited, found after a crash, unchanged, skipped, failed)',
      labelNames: ['forge', 'outcome'],
      registers,
    }),
    eventToStatus: new Histogram({
      name: 'gdb_event_to_status_seconds',
      help: 'Time from a webhook event to the forge statuses sent by the reconcile it started (GitHub or Forgejo)',
      registers,
      buckets: [0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
    }),
    queueDepth: new Gauge({ name: 'gdb_queue_depth', help: 'Queued Flux sources by state', labelNames: ['state'], registers }),
    queueOldestAge: new Gauge({
      name: 'gdb_queue_oldest_item_age_seconds',
      help: 'How long the queued source due longest has waited to be taken (0: none is due)',
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
    sourcesFailing: new Gauge({
      name: 'gdb_sources_failing',
      help: 'Flux sources whose reconciles fail (since their last one that went through)',
      registers,
    }),
    sourcesFailingLongest: new Gauge({
      name: 'gdb_sources_failing_longest_seconds',
      help: 'How long the source failing longest has been failing (0: none fails)',
      registers,
    }),
    storageErrors: new Counter({
      name: 'gdb_storage_errors_total',
      help: 'Database writes that failed for lack of storage (disk full, read-only, I/O error), by SQLite code',
      labelNames: ['code'],
      registers,
    }),
    storageWritable: new Gauge({
      name: 'gdb_storage_writable',
      help: '1 while the database takes writes; 0 from a failed write until one goes through',
      registers,
    }),
    deploymentsByState: new Gauge({
      name: 'gdb_deployments',
      help: 'Cached deployments (Forgejo: status contexts) by forge and last status',
      labelNames: ['forge', 'state'],
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
