/**
 * The deployment endpoints: validate like GitHub, do the work on SimState, answer in GitHub's shape.
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../../../src/common/json.js';
import { paginate } from './pagination.js';
import { seenBody, type EndpointKey, type SpecValidators } from './spec.js';
import { repoKey, type NewStatus, type SimState } from './state.js';
import type { SimUser } from './wire-types.js';

/** A commit status context on a repository's commits (for the 409 "status checks failed" case). */
export interface StatusCheck {
  context: string;
  state: 'success' | 'failure' | 'pending' | 'error';
}

/** What GitHub would know about the repositories; keys are "owner/repo". */
export interface RepoFacts {
  /** Known commit SHAs; when set, unknown SHAs are refused and short SHAs are expanded. */
  commits?: Record<string, string[]>;
  /** Commit status contexts, checked unless `required_contexts: []` is sent. */
  statusChecks?: Record<string, StatusCheck[]>;
  /** Refs behind the default branch: a create without `auto_merge: false` answers 202 "Auto-merged". */
  behindRefs?: Record<string, string[]>;
}

/** A schema or semantic rule broken by a client request (or, kind 'response', by the simulator). */
export interface Violation {
  method: string;
  path: string;
  endpoint?: EndpointKey;
  kind: 'body' | 'query' | 'json' | 'semantic' | 'response';
  errors: string[];
  data: unknown;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** True when the request changed state (a deployment or status written, a deployment deleted). */
  didWork?: boolean;
  endpoint?: EndpointKey;
}

export interface RouteContext {
  state: SimState;
  spec: SpecValidators;
  facts: RepoFacts;
  creator: SimUser;
  /** Absolute URL of the request path without query, for Link headers. */
  selfUrl: string;
  violation(v: Pick<Violation, 'endpoint' | 'kind' | 'errors' | 'data'>): void;
}

export interface RouteRequest {
  owner: string;
  repo: string;
  id?: number;
  query: Record<string, string>;
  body: unknown;
}

export type Handler = (ctx: RouteContext, req: RouteRequest) => Reply;

const EP = {
  createDeployment: 'POST /repos/{owner}/{repo}/deployments',
  listDeployments: 'GET /repos/{owner}/{repo}/deployments',
  createStatus: 'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
  listStatuses: 'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
  deleteDeployment: 'DELETE /repos/{owner}/{repo}/deployments/{deployment_id}',
} as const satisfies Record<string, EndpointKey>;

const MAX_STATUS_DESCRIPTION = 140;

/** GitHub's 404 body. */
export function notFound(docs = 'https://docs.github.com/rest'): Reply {
  return { status: 404, body: { message: 'Not Found', documentation_url: docs, status: '404' } };
}

function refused(ctx: RouteContext, endpoint: EndpointKey, kind: Violation['kind'], errors: string[], data: unknown): Reply {
  ctx.violation({ endpoint, kind, errors, data });
  return {
    status: 422,
    endpoint,
    body: { message: `Invalid request.\n\n${errors.join('\n')}`, documentation_url: ctx.spec.docs(endpoint), status: '422' },
  };
}

function validationFailed(ctx: RouteContext, endpoint: EndpointKey, error: Record<string, string>, data: unknown): Reply {
  ctx.violation({ endpoint, kind: 'semantic', errors: [error.message ?? error.code ?? 'invalid'], data });
  return {
    status: 422,
    endpoint,
    body: { message: 'Validation Failed', errors: [error], documentation_url: ctx.spec.docs(endpoint), status: '422' },
  };
}

/** The SHA GitHub would record for `ref`, or undefined for "No ref found". */
function resolveSha(key: string, ref: string, known: string[] | undefined): string | undefined {
  const lower = ref.toLowerCase();
  if (/^[0-9a-f]{40}$/.test(lower)) return known === undefined || known.includes(lower) ? lower : undefined;
  if (/^[0-9a-f]{7,39}$/.test(lower)) {
    const hits = (known ?? []).filter((sha) => sha.startsWith(lower));
    return hits.length === 1 ? hits[0] : undefined;
  }
  return createHash('sha1').update(`${key}@${ref}`).digest('hex');
}

function parsePayload(payload: unknown): Record<string, unknown> | undefined {
  let value: unknown = payload ?? {};
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return isRecord(value) ? value : undefined;
}

const createDeployment: Handler = (ctx, { owner, repo, body }) => {
  const ep = EP.createDeployment;
  const errors = ctx.spec.body(ep, body);
  if (errors.length > 0) return refused(ctx, ep, 'body', errors, body);
  const b = body as Record<string, unknown>;
  const payload = parsePayload(b.payload);
  if (payload === undefined)
    return validationFailed(
      ctx,
      ep,
      { resource: 'Deployment', field: 'payload', code: 'invalid', message: 'payload must be a JSON object or a string holding one' },
      body,
    );
  const key = repoKey(owner, repo);
  const ref = b.ref as string;
  const sha = resolveSha(
    key,
    ref,
    ctx.facts.commits?.[key]?.map((s) => s.toLowerCase()),
  );
  if (sha === undefined) {
    const seen = seenBody(ctx.spec.fixture, 'createDeployment.422.noRef');
    return { status: 422, endpoint: ep, body: { ...seen.body, message: `No ref found for: ${ref}`, documentation_url: ctx.spec.docs(ep) } };
  }
  if (b.auto_merge !== false && ctx.facts.behindRefs?.[key]?.includes(ref)) {
    const seen = seenBody(ctx.spec.fixture, 'createDeployment.202');
    return { status: 202, endpoint: ep, body: { ...seen.body, message: `Auto-merged main into ${ref} on deployment.` } };
  }
  const checks = ctx.facts.statusChecks?.[key] ?? [];
  const required = b.required_contexts as string[] | undefined;
  const failing =
    required === undefined
      ? checks.some((c) => c.state !== 'success')
      : required.some((r) => checks.find((c) => c.context === r)?.state !== 'success');
  if (failing) {
    const seen = seenBody(ctx.spec.fixture, 'createDeployment.409.statusChecks');
    const error = { resource: 'Deployment', field: 'required_contexts', code: 'invalid', contexts: checks };
    return {
      status: 409,
      endpoint: ep,
      body: { ...seen.body, message: `Conflict: Commit status checks failed for ${ref}.`, errors: [error] },
    };
  }
  const environment = (b.environment as string | undefined) ?? 'production';
  const deployment = ctx.state.create(
    owner,
    repo,
    {
      ref,
      sha,
      task: (b.task as string | undefined) ?? 'deploy',
      environment,
      description: b.description === undefined ? '' : (b.description as string | null),
      payload,
      production_environment: (b.production_environment as boolean | undefined) ?? environment === 'production',
      transient_environment: (b.transient_environment as boolean | undefined) ?? false,
    },
    ctx.creator,
  );
  return { status: 201, endpoint: ep, body: deployment, didWork: true };
};

const listDeployments: Handler = (ctx, { owner, repo, query }) => {
  const ep = EP.listDeployments;
  const errors = ctx.spec.query(ep, query);
  if (errors.length > 0) return refused(ctx, ep, 'query', errors, query);
  const { sha, ref, task, environment } = query;
  const { page, link } = paginate(ctx.state.list(owner, repo, { sha, ref, task, environment }), query, ctx.selfUrl);
  return { status: 200, endpoint: ep, body: page, headers: link === undefined ? {} : { link } };
};

const createStatus: Handler = (ctx, { owner, repo, id, body }) => {
  const ep = EP.createStatus;
  const errors = ctx.spec.body(ep, body);
  if (errors.length > 0) return refused(ctx, ep, 'body', errors, body);
  const input = body as NewStatus;
  if ((input.description ?? '').length > MAX_STATUS_DESCRIPTION) {
    return validationFailed(
      ctx,
      ep,
      {
        resource: 'DeploymentStatus',
        field: 'description',
        code: 'custom',
        message: `description is too long (maximum is ${MAX_STATUS_DESCRIPTION} characters)`,
      },
      body,
    );
  }
  const status = id === undefined ? undefined : ctx.state.addStatus(owner, repo, id, input, ctx.creator);
  if (status === undefined) return { ...notFound(ctx.spec.docs(ep)), endpoint: ep };
  return { status: 201, endpoint: ep, body: status, headers: { location: status.url }, didWork: true };
};

const listStatuses: Handler = (ctx, { owner, repo, id, query }) => {
  const ep = EP.listStatuses;
  const errors = ctx.spec.query(ep, query);
  if (errors.length > 0) return refused(ctx, ep, 'query', errors, query);
  const statuses = id === undefined ? undefined : ctx.state.statuses(owner, repo, id);
  if (statuses === undefined) return { ...notFound(ctx.spec.docs(ep)), endpoint: ep };
  const { page, link } = paginate(statuses, query, ctx.selfUrl);
  return { status: 200, endpoint: ep, body: page, headers: link === undefined ? {} : { link } };
};

const getDeployment: Handler = (ctx, { owner, repo, id }) => {
  const deployment = id === undefined ? undefined : ctx.state.get(owner, repo, id);
  return deployment === undefined ? notFound() : { status: 200, body: deployment };
};

const deleteDeployment: Handler = (ctx, { owner, repo, id }) => {
  const ep = EP.deleteDeployment;
  const outcome = id === undefined ? 'missing' : ctx.state.remove(owner, repo, id);
  if (outcome === 'missing') return { ...notFound(ctx.spec.docs(ep)), endpoint: ep };
  if (outcome === 'active') {
    const seen = seenBody(ctx.spec.fixture, 'deleteDeployment.422.active');
    return { status: 422, endpoint: ep, body: { ...seen.body, documentation_url: ctx.spec.docs(ep) } };
  }
  return { status: 204, endpoint: ep, didWork: true };
};

const ROUTES: Array<{ method: string; pattern: RegExp; handler: Handler }> = [
  { method: 'POST', pattern: /^\/repos\/([^/]+)\/([^/]+)\/deployments$/, handler: createDeployment },
  { method: 'GET', pattern: /^\/repos\/([^/]+)\/([^/]+)\/deployments$/, handler: listDeployments },
  { method: 'GET', pattern: /^\/repos\/([^/]+)\/([^/]+)\/deployments\/(\d+)$/, handler: getDeployment },
  { method: 'DELETE', pattern: /^\/repos\/([^/]+)\/([^/]+)\/deployments\/(\d+)$/, handler: deleteDeployment },
  { method: 'POST', pattern: /^\/repos\/([^/]+)\/([^/]+)\/deployments\/(\d+)\/statuses$/, handler: createStatus },
  { method: 'GET', pattern: /^\/repos\/([^/]+)\/([^/]+)\/deployments\/(\d+)\/statuses$/, handler: listStatuses },
];

/** The handler and path parameters for a method + path (path without prefix or query), if any. */
export function matchRoute(method: string, path: string): { handler: Handler; owner: string; repo: string; id?: number } | undefined {
  for (const r of ROUTES) {
    const m = r.method === method ? r.pattern.exec(path) : null;
    if (m === null) continue;
    // A group that took no part in the match is undefined, though typed string.
    const [, owner = '', repo = '', id] = m.map((s: string | undefined) => (s === undefined ? s : decodeURIComponent(s)));
    return { handler: r.handler, owner, repo, id: id === undefined ? undefined : Number(id) };
  }
  return undefined;
}
