import type { FastifyInstance, FastifyRequest } from 'fastify';
import { setScrapeGauges } from './scrape-gauges.js';
import { stateSnapshot, type StatusDeps } from './state-snapshot.js';
import { renderStatusPage } from './status-page.js';
import { basicMatches, bearerMatches } from './bearer.js';
import { capState, STATE_LISTS } from './state-cap.js';
import { STATUS_RATE_PER_MINUTE } from '../common/request-rates.js';

/**
 * Allowed through STATE_TOKEN (or `_FILE`, read per request); an unreadable or emptied file lets nobody in. `/state`
 * takes only `Bearer`; the status page also the token as an HTTP Basic password, which is what a browser can send.
 */
async function tokenAllows(deps: StatusDeps, header: string | undefined, basic = false): Promise<boolean> {
  const token = typeof deps.stateToken === 'function' ? await deps.stateToken().catch(() => '') : deps.stateToken;
  return token === undefined || (token !== '' && (bearerMatches(header, token) || (basic && basicMatches(header, token))));
}

/** The status page's 401: a browser shows its sign-in dialog (any user name, the token as password). */
const PAGE_CHALLENGE = 'Basic realm="github-deployment-bridge status page", charset="UTF-8"';

/** `/state`'s filters, one value each; a repeated one is the reason for a 400 (its text as fastify's schemas put it). */
export function stateFilter(query: unknown): { repository?: string; environment?: string } | string {
  const q = (query ?? {}) as Record<string, unknown>;
  const filter: { repository?: string; environment?: string } = {};
  for (const name of ['repository', 'environment'] as const) {
    const value = q[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') return `querystring/${name} must be string`;
    filter[name] = value;
  }
  return filter;
}

/**
 * Headers of `/state` and the status page (issue 32): no script, frame, form or outside resource may run on the page
 * (its one inline stylesheet aside), the JSON is never sniffed into HTML, and what workloads wrote is never cached.
 */
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

/** `/healthz`, `/readyz`, `/state` and `/metrics`: what the bridge is doing, for people and probes. */
export function statusRoutes(app: FastifyInstance, deps: StatusDeps): void {
  const forges = deps.forges ?? [];
  const sections = deps.sections ?? [];
  const lists = [...STATE_LISTS, ...sections.flatMap((f) => f.state?.lists ?? [])];
  const pages = sections.flatMap((f) => (f.page ? [f.page] : []));
  const limited = (group: string) => ({
    rateLimit: {
      max: deps.statusRatePerMinute ?? STATUS_RATE_PER_MINUTE,
      timeWindow: 60_000,
      // `/state` and `/` share a budget; `/readyz` has its own, so a reader of /state never fails the probe.
      keyGenerator: (req: FastifyRequest) => `${group} ${req.ip}`,
    },
  });
  app.get('/healthz', () => ({ status: 'ok' }));

  app.get('/readyz', { config: limited('readyz') }, (_req, reply) => {
    const r = deps.readiness();
    return reply.code(r.ready ? 200 : 503).send(r);
  });

  app.get('/state', { config: limited('state') }, async (req, reply) => {
    void reply.headers(PAGE_HEADERS);
    if (!(await tokenAllows(deps, req.headers.authorization))) {
      return reply.code(401).send({ error: 'STATE_TOKEN is set: send Authorization: Bearer <token>' });
    }
    const filter = stateFilter(req.query);
    if (typeof filter === 'string') return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: filter });
    return capState(stateSnapshot(deps, filter), undefined, lists);
  });

  // The same snapshot as HTML for a person, under the same token: as a Bearer token, or a browser's Basic password.
  app.get('/', { config: limited('state') }, async (req, reply) => {
    void reply.headers(PAGE_HEADERS);
    if (!(await tokenAllows(deps, req.headers.authorization, true))) {
      return reply
        .code(401)
        .header('www-authenticate', PAGE_CHALLENGE)
        .send({ error: 'STATE_TOKEN is set: sign in with any user name and the token as password, or send Authorization: Bearer <token>' });
    }
    const titles = Object.fromEntries(forges.map((f) => [f.name, f.title]));
    const now = deps.now();
    const budgets = forges.flatMap((f) => (f.writeBudget ? [{ title: f.title, view: f.writeBudget.view(now) }] : []));
    return reply.type('text/html; charset=utf-8').send(renderStatusPage(stateSnapshot(deps), titles, now, pages, budgets));
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
    for (const f of forges) f.scrape();
    for (const f of sections) f.scrape?.();
    deps.metrics.forgeRefusals.reset();
    for (const { forge, code, count } of deps.refusals?.counts(deps.now()) ?? []) deps.metrics.forgeRefusals.set({ forge, code }, count);
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
