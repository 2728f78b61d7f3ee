import { Octokit, RequestError } from 'octokit';
import type { Logger } from 'pino';
import { GitHubError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { CreateDeploymentBody, CreateStatusBody, DeploymentsPort, GhDeployment, GhStatus, RepoRef } from './types.js';

/** Every GitHub request is abandoned after this long; the queue retries the source later. */
export const GITHUB_TIMEOUT_MS = 15_000;
/** Longest rate-limit wait octokit may sit out in-process before the source goes back to the queue. */
const MAX_INLINE_WAIT_S = 60;

export interface GitHubClientOptions {
  token: string;
  baseUrl: string;
  userAgent: string;
  metrics: Metrics;
  log: Logger;
  timeoutMs?: number;
}

/** Octokit configured for the bridge: no blind retries (creation is find-or-create), writes spaced by the throttler. */
export function createOctokit(o: GitHubClientOptions): Octokit {
  const onLimit = (kind: string) => (retryAfter: number, options: { method?: string; url?: string }, _ok: unknown, retryCount: number) => {
    o.log.warn({ kind, retryAfter, endpoint: `${options.method} ${options.url}` }, 'GitHub rate limit hit');
    return retryCount < 1 && retryAfter <= MAX_INLINE_WAIT_S;
  };
  const octokit = new Octokit({
    auth: o.token,
    baseUrl: o.baseUrl,
    userAgent: o.userAgent,
    // A retried POST whose first attempt succeeded would duplicate a deployment: the queue retries instead.
    retry: { enabled: false },
    throttle: { onRateLimit: onLimit('primary'), onSecondaryRateLimit: onLimit('secondary') },
    log: { debug: () => {}, info: () => {}, warn: (m: string) => o.log.warn(m), error: (m: string) => o.log.error(m) },
  });
  octokit.hook.wrap('request', async (request, options) => {
    const endpoint = `${options.method} ${options.url}`;
    try {
      const res = await request(options);
      o.metrics.github.inc({ endpoint, status: String(res.status) });
      return res;
    } catch (err) {
      o.metrics.github.inc({ endpoint, status: err instanceof RequestError ? String(err.status) : 'network' });
      throw err;
    }
  });
  return octokit;
}

function wrap(what: string, err: unknown): GitHubError {
  if (err instanceof GitHubError) return err;
  if (err instanceof RequestError) {
    const message = (err.response?.data as { message?: string } | undefined)?.message ?? err.message;
    return new GitHubError(`${what}: ${err.status} ${message}`, err.status, { cause: err });
  }
  const e = err as Error;
  const timeout = e?.name === 'TimeoutError' || e?.name === 'AbortError';
  return new GitHubError(`${what}: ${timeout ? 'timed out' : e?.message ?? String(err)}`, undefined, { cause: err });
}

/** The deployments port over octokit. */
export function createDeploymentsPort(octokit: Octokit, timeoutMs = GITHUB_TIMEOUT_MS): DeploymentsPort {
  const call = async <T>(what: string, fn: (signal: AbortSignal) => Promise<{ data: unknown }>): Promise<T> => {
    try {
      return (await fn(AbortSignal.timeout(timeoutMs))).data as T;
    } catch (err) {
      throw wrap(what, err);
    }
  };
  return {
    listDeployments: (r: RepoRef, q) =>
      call<GhDeployment[]>(`list deployments of ${r.owner}/${r.repo}`, (signal) =>
        octokit.rest.repos.listDeployments({ ...r, ...q, per_page: 100, request: { signal } })),
    createDeployment: (r: RepoRef, body: CreateDeploymentBody) =>
      call<GhDeployment>(`create deployment in ${r.owner}/${r.repo}`, async (signal) => {
        const res = await octokit.rest.repos.createDeployment({ ...r, ...body, request: { signal } });
        // 202 means GitHub merged the default branch instead of creating: never expected with auto_merge false.
        if (res.status !== 201) throw new GitHubError(`GitHub answered ${res.status} instead of creating a deployment`, 422);
        return res;
      }),
    listStatuses: (r: RepoRef, deploymentId: number) =>
      call<GhStatus[]>(`list statuses of deployment ${deploymentId}`, (signal) =>
        octokit.rest.repos.listDeploymentStatuses({ ...r, deployment_id: deploymentId, per_page: 100, request: { signal } })),
    createStatus: async (r: RepoRef, deploymentId: number, body: CreateStatusBody) => {
      await call(`create ${body.state} status on deployment ${deploymentId}`, (signal) =>
        octokit.rest.repos.createDeploymentStatus({ ...r, deployment_id: deploymentId, ...body, request: { signal } }));
    },
  };
}
