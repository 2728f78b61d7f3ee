import { Octokit } from '@octokit/core';
import { RequestError } from '@octokit/request-error';
import type { Logger } from 'pino';
import { GitHubError } from './github-error.js';
import { ForgeError } from '../../common/errors.js';
import type { Metrics } from '../../common/metrics.js';
import { GitHubCallError, inOperation, type GitHubOperation } from './call-error.js';
import { commentScope, ForgePaused, type ForgeHealth, type HeaderBag } from '../forge-health.js';
import { BudgetDeferred, type BudgetGate } from './budget-gate.js';
import { COMMENT_CLASS, type Turn } from './write-budget.js';
import { rateLimitOf } from './rate-limit.js';
import { MAX_FORGE_ANSWER_BYTES, cappedFetch } from '../../common/capped-body.js';
import { sameOriginFetch } from '../forge-fetch.js';
import type {
  CreateDeploymentBody,
  CreateStatusBody,
  DeploymentsPort,
  GhDeployment,
  GhStatus,
  GraphQLAnswer,
  RepoRef,
} from './github-types.js';
import { DEFAULT_WRITE_INTERVAL_MS, WriteSpacing } from './write-spacing.js';

/** Every GitHub request is abandoned after this long; the queue retries the source later. */
export const GITHUB_TIMEOUT_MS = 15_000;

/** How a client authenticates: asked before every request, so App tokens can refresh. */
export interface Credentials {
  scheme: 'token' | 'bearer';
  get(): Promise<string>;
  /** Forgets a cached credential after a 401, so the next request gets a fresh one. */
  invalidate?(): void;
}

/** A fixed token (`GITHUB_TOKEN`). */
export const staticToken = (token: string): Credentials => ({ scheme: 'token', get: () => Promise.resolve(token) });

export interface GitHubClientOptions {
  credentials: Credentials;
  baseUrl: string;
  userAgent: string;
  metrics: Metrics;
  log: Logger;
  health: ForgeHealth;
  /**
   * The credential scope, with a budget of its own: `token`, `app`, `installation 42`. A rate limit
   * pauses this scope's requests only; /state shows budgets and pauses by it.
   */
  scope: string;
  /** Largest answer read (default MAX_FORGE_ANSWER_BYTES); a larger one fails as a network failure would. */
  maxAnswerBytes?: number;
  /** false: sent even while GitHub work is paused (the credential check itself). Default true. */
  gated?: boolean;
  /** Space writes (default true; fault-matrix tests turn it off). */
  spaceWrites?: boolean;
  /** Paces the writes (`GITHUB_WRITE_INTERVAL`), shared by every client; default DEFAULT_SPACING. */
  writeSpacing?: WriteSpacing;
  /**
   * The write budget of every scope (`GITHUB_WRITE_BUDGET`): writes wait for their turn or are deferred, and
   * requests with a turn spend the primary budget within their class's share. None: unbudgeted (tests).
   */
  budget?: BudgetGate;
  /** GitHub answered 401 (after `credentials.invalidate()`). */
  onUnauthorized?: (reason: string) => void;
  now?: () => number;
}

/** The pace of clients given no WriteSpacing: 1 s between writes, shared by all of them. */
const DEFAULT_SPACING = new WriteSpacing(DEFAULT_WRITE_INTERVAL_MS);

/** A content-creating request, as the throttler counts writes: neither a read nor a token mint. */
const isWrite = (method: string, url: string) => method !== 'GET' && method !== 'HEAD' && !url.endsWith('/access_tokens');

interface RequestFn {
  (options: unknown): Promise<unknown>;
  endpoint: { merge(route: unknown, parameters?: unknown): { headers: Record<string, string> } };
}

/** An auth strategy that asks the gate, then the credentials, right before the request leaves (after the waits for write spacing). */
function gatedAuth(credentials: Credentials, gate: () => void) {
  return () =>
    Object.assign(async () => ({ type: 'token', token: await credentials.get() }), {
      hook: async (request: RequestFn, route: unknown, parameters?: unknown) => {
        gate();
        const endpoint = request.endpoint.merge(route, parameters);
        endpoint.headers.authorization = `${credentials.scheme} ${await credentials.get()}`;
        return request(endpoint);
      },
    });
}

/**
 * Octokit configured for the bridge: no blind retries (creation is find-or-create), writes spaced by the
 * WriteSpacing but never a sleep inside a request for a rate limit (the bridge pauses the client's
 * credential scope instead), nothing sent while its scope is paused, every answer counted and its budget
 * recorded. Octokit's core alone, without the plugins of the `octokit` package (about 10 MiB of a process): no
 * retry plugin (a retried POST whose first attempt succeeded would duplicate a deployment: the queue retries
 * instead); no throttling plugin: the WriteSpacing does its one job here (spacing writes), and its Bottleneck
 * limiters cost about ten 0 ms timer turns per request, which was most of the bridge's own latency between two
 * GitHub calls; routes named as GitHub's REST API names them (`GET /repos/{owner}/{repo}/deployments`). Concurrency is
 * bounded by RECONCILE_CONCURRENCY (sequential calls per reconcile), below GitHub's 100 concurrent requests.
 */
export function createOctokit(o: GitHubClientOptions): Octokit {
  const gated = o.gated ?? true;
  const spacing = (o.spaceWrites ?? true) ? (o.writeSpacing ?? DEFAULT_SPACING) : undefined;
  const gate = () => {
    if (gated) o.health.assertOpen(o.scope);
  };
  const octokit = new Octokit({
    authStrategy: gatedAuth(o.credentials, gate),
    baseUrl: o.baseUrl,
    userAgent: o.userAgent,
    // Every answer read with a bound (capped-body.ts): a larger one fails like a network failure, outcome unknown;
    // redirects followed on GitHub's own origin only (forge-fetch.ts): the token never leaves it.
    request: { fetch: cappedFetch(o.maxAnswerBytes ?? MAX_FORGE_ANSWER_BYTES, sameOriginFetch()) },
    log: { debug: () => {}, info: () => {}, warn: (m: string) => o.log.warn(m), error: (m: string) => o.log.error(m) },
  });
  octokit.hook.wrap('request', async (request, options) => {
    const endpoint = `${options.method} ${options.url}`;
    const count = (status: string) => o.metrics.forgeRequests.inc({ forge: 'github', operation: endpoint, status });
    const budget = gated ? o.budget : undefined;
    const turn = (options.request as { turn?: Turn } | undefined)?.turn;
    const comment = turn?.class === COMMENT_CLASS;
    let release: (() => void) | undefined;
    try {
      gate();
      if (comment && gated) o.health.assertOpen(commentScope(o.scope));
      const write = isWrite(options.method, options.url);
      release = budget && turn ? budget.spend(o.scope, turn, o.health.budgetOf(o.scope)) : undefined;
      if (budget && write) await budget.write(o.scope, turn);
      const send = () => request(options);
      // A comment the budget let through goes now: it takes no place in the spacing's line that deployments wait in.
      const res = await (spacing && write && !(budget && comment) ? spacing.schedule(options, send) : send());
      count(String(res.status));
      o.health.observe(o.scope, res.headers);
      // The credential check's own answer is judged by the monitor (an App may answer 200 yet lack a permission).
      if (gated) o.health.succeeded(o.scope);
      return res;
    } catch (err) {
      const typed = settle(o, err, count, comment ? commentScope(o.scope) : o.scope);
      // No usable answer (refused, timed out, 5xx): /readyz and /state name it until a request succeeds.
      if (typed instanceof GitHubCallError && (typed.status === undefined || typed.status >= 500))
        o.health.unreachable(`${endpoint}: ${typed.message}`);
      throw typed;
    } finally {
      release?.();
    }
  });
  return octokit;
}

/** Sorts a failed request: counts it, records budget and pauses, and returns the typed error. */
function settle(o: GitHubClientOptions, err: unknown, count: (status: string) => void, pauses: string): unknown {
  if (err instanceof ForgePaused) {
    count('paused');
    return err;
  }
  if (err instanceof BudgetDeferred) {
    count('deferred');
    return err;
  }
  if (err instanceof RequestError && err.response !== undefined) {
    const headers = err.response.headers as HeaderBag;
    const githubMessage = (err.response.data as { message?: string } | undefined)?.message ?? err.message;
    count(String(err.status));
    // A comment's refusal pauses the scope's comments only (`pauses`): deployments go on until refused themselves.
    const hit = rateLimitOf(err.status, headers, githubMessage, (o.now ?? Date.now)(), o.health.secondaryRepeats(pauses));
    // GraphQL's budget is its own: spending it holds back the batched look-ups (they go to REST), not the scope's work.
    if (hit !== undefined && headers['x-ratelimit-resource'] !== 'graphql') {
      o.health.rateLimited(hit, pauses);
      o.log.warn(
        { kind: hit.kind, scope: pauses, until: new Date(hit.until).toISOString() },
        "GitHub rate limit: pausing this credential's requests",
      );
    }
    // After the refusal's own pause, so the pause says why GitHub refused.
    o.health.observe(o.scope, headers);
    if (err.status === 401) {
      o.credentials.invalidate?.();
      o.onUnauthorized?.(githubMessage);
    }
    return new GitHubCallError(`${err.status} ${githubMessage}`, err.status, githubMessage, undefined, {
      cause: err,
      ...(hit !== undefined ? { retryAt: hit.until } : {}),
    });
  }
  if (err instanceof GitHubError) return err;
  const e = (err instanceof RequestError && err.cause instanceof Error ? err.cause : err) as Error | undefined;
  const timeout = e?.name === 'TimeoutError' || e?.name === 'AbortError';
  count(timeout ? 'timeout' : 'network');
  return new GitHubCallError(timeout ? 'timed out' : `network error: ${networkDetail(err)}`, undefined, undefined, undefined, {
    cause: err,
  });
}

/** The innermost cause of a network failure (`fetch failed` names nothing; `connect ECONNREFUSED 10.0.0.1:443` does). */
function networkDetail(err: unknown): string {
  let detail = err instanceof Error ? err.message : String(err);
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (e.message) detail = e.message;
    if (typeof code === 'string' && !detail.includes(code)) detail = `${detail} (${code})`;
  }
  return detail;
}

/** Runs one call with a timeout and names what failed. */
export async function callGitHub<T>(
  op: GitHubOperation,
  what: string,
  fn: (signal: AbortSignal) => Promise<{ data: unknown }>,
  timeoutMs = GITHUB_TIMEOUT_MS,
): Promise<T> {
  try {
    return (await fn(AbortSignal.timeout(timeoutMs))).data as T;
  } catch (err) {
    if (err instanceof GitHubCallError) throw inOperation(err, op, what);
    // Typed already, or never sent (paused, deferred by the write budget).
    if (err instanceof GitHubError || err instanceof ForgeError) throw err;
    throw new GitHubCallError(`${what}: ${err instanceof Error ? err.message : String(err)}`, undefined, undefined, op, { cause: err });
  }
}

/** The deployments port over one octokit (one token or one App installation). */
export function createDeploymentsPort(octokit: Octokit, timeoutMs = GITHUB_TIMEOUT_MS): DeploymentsPort {
  const call = <T>(op: GitHubOperation, what: string, fn: (signal: AbortSignal) => Promise<{ data: unknown }>) =>
    callGitHub<T>(op, what, fn, timeoutMs);
  return {
    listDeployments: (r: RepoRef, q, turn) =>
      call<GhDeployment[]>('listDeployments', `list deployments of ${r.owner}/${r.repo}`, (signal) =>
        octokit.request('GET /repos/{owner}/{repo}/deployments', { ...r, ...q, per_page: 100, request: { signal, turn } }),
      ),
    createDeployment: (r: RepoRef, body: CreateDeploymentBody, turn) =>
      call<GhDeployment>('createDeployment', `create deployment in ${r.owner}/${r.repo}`, async (signal) => {
        const res = await octokit.request('POST /repos/{owner}/{repo}/deployments', { ...r, ...body, request: { signal, turn } });
        // 202 means GitHub merged the default branch instead of creating: never expected with auto_merge false.
        if (res.status !== 201)
          throw new GitHubCallError(`GitHub answered ${res.status} instead of creating a deployment`, 422, undefined, 'createDeployment');
        return res;
      }),
    listStatuses: (r: RepoRef, deploymentId: number, turn) =>
      call<GhStatus[]>('listStatuses', `list statuses of deployment ${deploymentId}`, (signal) =>
        octokit.request('GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
          ...r,
          deployment_id: deploymentId,
          per_page: 100,
          request: { signal, turn },
        }),
      ),
    createStatus: async (r: RepoRef, deploymentId: number, body: CreateStatusBody, turn) => {
      await call('createStatus', `create ${body.state} status on deployment ${deploymentId}`, (signal) =>
        octokit.request('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
          ...r,
          deployment_id: deploymentId,
          ...body,
          request: { signal, turn },
        }),
      );
    },
    queryDeployments: async (r: RepoRef, body) => {
      let resetAt: number | undefined;
      const answer = await call<Omit<GraphQLAnswer, 'cost' | 'resetAt'>>(
        'findDeployments',
        `find deployments (GraphQL, from ${r.owner})`,
        async (signal) => {
          // GitHub Enterprise Server answers GraphQL at /api/graphql, beside its REST API's /api/v3.
          const baseUrl = octokit.request.endpoint.DEFAULTS.baseUrl.replace(/\/api\/v3\/?$/, '/api');
          const res = await octokit.request('POST /graphql', { ...body, baseUrl, request: { signal } });
          const reset = Number(res.headers['x-ratelimit-reset']);
          resetAt = Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
          return res;
        },
      );
      const cost = (answer.data as { rateLimit?: { cost?: unknown } } | null | undefined)?.rateLimit?.cost;
      return { ...answer, ...(typeof cost === 'number' ? { cost } : {}), ...(resetAt === undefined ? {} : { resetAt }) };
    },
  };
}
