import type { FastifyInstance } from 'fastify';
import { fromGitHubState } from '../forges/forgejo/commit-status-plan.js';
import type { GitHubHealth, GitHubPause } from '../forges/github/github-health.js';
import { forgeOfRefusalKey } from '../forges/github/refusal-classify.js';
import type { Metrics } from '../common/metrics.js';
import type { KubeHealth } from '../health/kube-health.js';
import type { DeploymentStore } from '../store/deployment-store.js';
import type { QueueStore } from '../store/queue-store.js';
import type { RefusalStore } from '../store/refusal-store.js';
import type { SourceStore } from '../store/source-store.js';
import { setScrapeGauges } from './scrape-gauges.js';
import { renderStatusPage, type ForgeLinks } from './status-page.js';
import { bearerMatches } from './bearer.js';
import { capState } from './state-cap.js';

/** Why the bridge is or is not ready to do its work. */
export interface Readiness {
  ready: boolean;
  reasons: string[];
  /** Dependencies failing now that do not make it unready (the queue retries), each with its last error. */
  degraded?: string[];
}

export interface StatusDeps {
  queue: QueueStore;
  deployments: DeploymentStore;
  sources: SourceStore;
  metrics: Metrics;
  now: () => number;
  readiness: () => Readiness;
  activeReconciles: () => number;
  /** The GitHub side: credentials, rate-limit pause and budget; refusals waiting for their late retry. */
  github?: { health: GitHubHealth; refusals: RefusalStore; now: () => number };
  /** The Forgejo side (same tracker): credentials, pause; its refusals. */
  forgejo?: { health: GitHubHealth; refusals: RefusalStore; now: () => number; url: string };
  /** What the registry cache holds (digests with labels, tags with their digest). */
  registryCache?: () => { digests: number; tags: number };
  /** `STATE_TOKEN`: when set, /state answers only requests with `Authorization: Bearer <token>` (`_FILE`: read per request). */
  stateToken?: string | (() => Promise<string>);
  /** Whether the database takes writes (and since when it does not), for /state. */
  storageState?: () => unknown;
  /** When the Kubernetes API last answered, for /metrics. */
  kubeHealth?: () => KubeHealth;
  /** Where the status page links rows to: GitHub's web host, Forgejo's web URL. */
  links?: ForgeLinks;
  /** `DRY_RUN`: forge writes are logged, not sent; /state says so at the top (false when unset). */
  dryRun?: boolean;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const pauseState = (p: GitHubPause) => ({ kind: p.kind, reason: p.reason, since: iso(p.since), until: iso(p.until) });

/** The `github` and `forgejo` sections of /state: credentials, pause, (GitHub) budgets and each forge's refusals. */
function forgeState(g: NonNullable<StatusDeps['github']>, forgejo: boolean) {
  const h = g.health.snapshot();
  return {
    ...(forgejo ? {} : { auth: h.auth }),
    credentials: { ...h.credentials, checkedAt: iso(h.credentials.checkedAt), nextCheckAt: iso(h.credentials.nextCheckAt) },
    paused: h.pause === null ? null : pauseState(h.pause),
    // Rate limits pause one credential scope each (the token; the App's JWT, each installation).
    pausedScopes: h.pauses.map((p) => ({ scope: p.scope, ...pauseState(p) })),
    ...(forgejo ? {} : { budgets: h.budgets.map((b) => ({ ...b, resetAt: iso(b.resetAt), observedAt: iso(b.observedAt) })) }),
    refusals: g.refusals
      .list()
      .filter((r) => (forgeOfRefusalKey(r.key) === 'forgejo') === forgejo)
      .map((r) => ({ ...r, since: iso(r.since), retryAt: iso(r.retryAt), waiting: r.retryAt > g.now() })),
  };
}

/** Allowed through STATE_TOKEN (or `_FILE`, read per request); an unreadable or emptied file lets nobody in. */
async function tokenAllows(deps: StatusDeps, header: string | undefined): Promise<boolean> {
  const token = typeof deps.stateToken === 'function' ? await deps.stateToken().catch(() => '') : deps.stateToken;
  return token === undefined || (token !== '' && bearerMatches(header, token));
}

/** What /state serves and the status page (`GET /`) renders: one snapshot. */
export function stateSnapshot(deps: StatusDeps, filter: { repository?: string; environment?: string } = {}) {
  const { repository, environment } = filter;
  return {
    dryRun: deps.dryRun ?? false,
    deployments: deps.deployments
      .list(500, { ...(repository ? { repository } : {}), ...(environment ? { environment } : {}) })
      .map((d) => ({
        forge: d.forge,
        owner: d.owner,
        repo: d.repo,
        environment: d.environment,
        sha: d.sha,
        deploymentName: d.deploymentName,
        ...(d.forge === 'github' ? { deploymentId: d.deploymentId } : { context: d.context }),
        // A Forgejo context that ended says `gone` (Forgejo has no inactive state).
        state: d.state === null ? 'provisional' : d.forge === 'forgejo' ? fromGitHubState(d.state) : d.state,
        description: d.description,
        workload: `${d.origin.workload.kind}/${d.origin.workload.namespace}/${d.origin.workload.name}`,
        container: d.origin.container,
        image: d.origin.image,
        source: `${d.origin.source.kind}/${d.origin.source.namespace}/${d.origin.source.name}`,
        updatedAt: iso(d.updatedAt),
      })),
    skipped: deps.sources.listSkips().map((s) => ({
      source: `${s.source.kind}/${s.source.namespace}/${s.source.name}`,
      workload: `${s.workload.kind}/${s.workload.namespace}/${s.workload.name}`,
      container: s.container || null,
      code: s.code,
      reason: s.reason,
      since: iso(s.since),
    })),
    sources: deps.sources.list().map((s) => ({ ...s, lastSeen: iso(s.lastSeen) })),
    queue: {
      ...deps.queue.counts(),
      running: deps.activeReconciles(),
      items: deps.queue.list().map((q) => ({ ...q, notBefore: iso(q.notBefore) })),
    },
    readiness: deps.readiness(),
    ...(deps.storageState ? { storage: deps.storageState() } : {}),
    ...(deps.registryCache ? { registryCache: deps.registryCache() } : {}),
    ...(deps.github ? { github: forgeState(deps.github, false) } : {}),
    ...(deps.forgejo ? { forgejo: { url: deps.forgejo.url, ...forgeState(deps.forgejo, true) } } : {}),
  };
}

export type StateSnapshot = ReturnType<typeof stateSnapshot>;

/** `/state`'s filters: one value each (a repeated parameter is a 400, not a crash). */
const STATE_QUERY = {
  querystring: {
    type: 'object',
    properties: { repository: { type: 'string' }, environment: { type: 'string' } },
  },
} as const;

/** `/healthz`, `/readyz`, `/state` and `/metrics`: what the bridge is doing, for people and probes. */
export function statusRoutes(app: FastifyInstance, deps: StatusDeps): void {
  app.get('/healthz', () => ({ status: 'ok' }));

  app.get('/readyz', (_req, reply) => {
    const r = deps.readiness();
    return reply.code(r.ready ? 200 : 503).send(r);
  });

  app.get<{ Querystring: { repository?: string; environment?: string } }>('/state', { schema: STATE_QUERY }, async (req, reply) => {
    if (!(await tokenAllows(deps, req.headers.authorization))) {
      return reply.code(401).send({ error: 'STATE_TOKEN is set: send Authorization: Bearer <token>' });
    }
    return capState(stateSnapshot(deps, req.query));
  });

  // The same snapshot as HTML for a person, under the same token rule.
  app.get('/', async (req, reply) => {
    if (!(await tokenAllows(deps, req.headers.authorization))) {
      return reply.code(401).send({ error: 'STATE_TOKEN is set: send Authorization: Bearer <token>' });
    }
    return reply.type('text/html; charset=utf-8').send(renderStatusPage(stateSnapshot(deps), deps.links ?? {}));
  });

  const startedAt = deps.now();
  app.get('/metrics', async (_req, reply) => {
    setScrapeGauges(deps, startedAt);
    const counts = deps.queue.counts();
    deps.metrics.queueDepth.set({ state: 'pending' }, counts.pending);
    deps.metrics.queueDepth.set({ state: 'active' }, counts.active);
    deps.metrics.deploymentsByState.reset();
    for (const { forge, state, count } of deps.deployments.countsByState()) deps.metrics.deploymentsByState.set({ forge, state }, count);
    deps.metrics.skipped.reset();
    for (const { code, count } of deps.sources.skipCounts()) deps.metrics.skipped.set({ reason: code }, count);
    if (deps.github) githubGauges(deps.metrics, deps.github);
    if (deps.forgejo) deps.metrics.forgejoCredentialsOk.set(deps.forgejo.health.credentialState === 'rejected' ? 0 : 1);
    // One store holds both forges' refusals; the code says which (github_*, forgejo_*).
    const refusals = deps.github ?? deps.forgejo;
    deps.metrics.githubRefusals.reset();
    if (refusals) for (const { code, count } of refusals.refusals.counts(refusals.now())) deps.metrics.githubRefusals.set({ code }, count);
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}

/** GitHub gauges, set at scrape time from the health tracker and the refusal store. */
function githubGauges(m: Metrics, g: NonNullable<StatusDeps['github']>): void {
  const h = g.health.snapshot();
  m.githubPausedUntil.reset();
  m.githubPausedUntil.set({ scope: 'all' }, h.pause === null ? 0 : Math.ceil(h.pause.until / 1000));
  for (const p of h.pauses) m.githubPausedUntil.set({ scope: p.scope ?? 'all' }, Math.ceil(p.until / 1000));
  m.githubCredentialsOk.set(h.credentials.state === 'rejected' ? 0 : 1);
  m.githubRemaining.reset();
  for (const b of h.budgets) m.githubRemaining.set({ scope: b.scope, resource: b.resource }, b.remaining);
}
