/**
 * The endpoints: parameters checked against the OpenAPI slice (Grape's 400 for what it refuses), the
 * work done on the GitLabBook, answers in GitLab's entities, with GitLab's rules: the deployment status
 * machine (`app/models/deployment.rb`), the commit and ref checks of a new deployment, environments
 * created on demand, and `DeploymentsFinder`'s list rules.
 */
import type { Violation as GitHubViolation } from '../github-sim/routes.js';
import type { SimReply } from '../sim-server.js';
import type { OperationId, SpecValidators } from './spec.js';
import { ENVIRONMENT_NAME, type GitLabBook, type ProjectState, type StoredDeployment, type StoredEnvironment } from './state.js';
import { currentUser, deployment, environment, gitlabPage, project } from './wire.js';

/** A rule broken by a client request (or, kind 'response', by the simulator), by operationId. */
export type Violation = Omit<GitHubViolation, 'endpoint'> & { operation?: OperationId };

/** An answer, with the operation whose response schema it must match. */
export type Reply = SimReply & { operation?: OperationId };

export interface RouteContext {
  spec: SpecValidators;
  book: GitLabBook;
  webUrl: string;
  /** The token's user. */
  username: string;
  /** Absolute URL of the request without its query, for Link headers. */
  selfUrl: string;
  query: Record<string, string>;
  body: unknown;
  violation(v: Omit<Violation, 'method' | 'path'>): void;
}

interface Matched {
  project: ProjectState;
  /** `deployment_id`, `environment_id` or `sha`. */
  arg: string;
  op: OperationId;
}

type Handler = (ctx: RouteContext, m: Matched) => Reply;

/** A handler of one deployment or environment by id: 404 when the project has none of that id. */
const byId =
  <T extends { id: number }>(
    items: (p: ProjectState) => T[],
    handle: (ctx: RouteContext, p: ProjectState, item: T, op: OperationId) => Reply,
  ): Handler =>
  (ctx, { project: p, arg, op }) => {
    const item = items(p).find((i) => String(i.id) === arg);
    return item === undefined ? error(ctx, 404, 'notFound.404') : handle(ctx, p, item, op);
  };
const byDeployment = (h: (ctx: RouteContext, p: ProjectState, d: StoredDeployment, op: OperationId) => Reply) =>
  byId((p) => p.deployments, h);
const byEnvironment = (h: (ctx: RouteContext, p: ProjectState, e: StoredEnvironment, op: OperationId) => Reply) =>
  byId((p) => p.environments, h);

const error = (ctx: RouteContext, status: number, key: string): Reply => ({ status, body: ctx.spec.errorBody(key) });
const validation = (field: string, message: string): Reply => ({ status: 400, body: { message: { [field]: [message] } } });

/** Grape's parameter check: a refusal answers 400 `{"error": …}`; undeclared parameters are ignored, and recorded. */
export function params(ctx: RouteContext, op: OperationId, where: 'body' | 'query'): Reply | undefined {
  const { refused, ignored } = where === 'body' ? ctx.spec.body(op, ctx.body) : ctx.spec.query(op, ctx.query);
  if (refused.length + ignored.length > 0)
    ctx.violation({ operation: op, kind: where, errors: [...refused, ...ignored], data: where === 'body' ? ctx.body : ctx.query });
  return refused.length > 0 ? { status: 400, body: { error: refused.join(', ') } } : undefined;
}

const DEPLOYMENT_ORDER: Record<string, (d: StoredDeployment) => number> = {
  id: (d) => d.id,
  iid: (d) => d.iid,
  created_at: (d) => d.createdAt,
  updated_at: (d) => d.updatedAt,
  finished_at: (d) => d.finishedAt ?? 0,
};

/** `DeploymentsFinder#validate!`, answered by the API as `bad_request!`. */
function listRuleBroken(q: Record<string, string>): string | undefined {
  const updated = q.updated_after !== undefined || q.updated_before !== undefined;
  const finished = q.finished_after !== undefined || q.finished_before !== undefined;
  if (updated && finished) return 'Both `updated_at` filter and `finished_at` filter can not be specified';
  if (updated && q.order_by !== 'updated_at') return '`updated_at` filter requires `updated_at` sort';
  if (finished && q.order_by !== 'finished_at') return '`finished_at` filter requires `finished_at` sort.';
  if (finished && q.status !== 'success') return '`finished_at` filter must be combined with `success` status filter.';
  return undefined;
}

const listDeployments: Handler = (ctx, { project: p, op }) => {
  const q = ctx.query;
  const broken = listRuleBroken(q);
  if (broken !== undefined) return { status: 400, body: { message: `400 Bad request - ${broken}` } };
  const env = q.environment === undefined ? undefined : ctx.book.environmentByName(p, q.environment);
  const within = (at: number | null, after?: string, before?: string) =>
    at !== null && (after === undefined || at > Date.parse(after)) && (before === undefined || at < Date.parse(before));
  const key = DEPLOYMENT_ORDER[q.order_by ?? 'id'] ?? DEPLOYMENT_ORDER.id!;
  const sign = q.sort === 'desc' ? -1 : 1;
  const found = p.deployments
    .filter((d) => q.environment === undefined || d.environmentId === env?.id)
    .filter((d) => q.status === undefined || d.status === q.status)
    .filter((d) => within(d.updatedAt, q.updated_after, q.updated_before) && within(d.finishedAt ?? 0, q.finished_after, q.finished_before))
    .sort((a, b) => sign * (key(a) - key(b) || a.id - b.id));
  const { page, headers } = gitlabPage(found, q, ctx.selfUrl);
  return { status: 200, operation: op, headers, body: page.map((d) => deployment(ctx.webUrl, p, d)) };
};

interface NewDeployment {
  environment: string;
  sha: string;
  ref: string;
  tag: boolean;
  status: string;
}

const createDeployment: Handler = (ctx, { project: p, op }) => {
  const b = ctx.body as NewDeployment;
  if (!ENVIRONMENT_NAME.test(b.environment) || b.environment.startsWith('/') || b.environment.endsWith('/'))
    return validation(
      'name',
      "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'",
    );
  if (ctx.book.refsOf(p, b.sha) === undefined) return error(ctx, 400, 'unknownCommit.400');
  if (!ctx.book.hasRef(p, b.ref)) return error(ctx, 400, 'unknownRef.400');
  const env = ctx.book.findOrCreateEnvironment(p, b.environment);
  const d = ctx.book.addDeployment(p, { environmentId: env.id, ref: b.ref, sha: b.sha, tag: b.tag, status: b.status, user: ctx.username });
  return { status: 201, operation: op, body: deployment(ctx.webUrl, p, d), didWork: true };
};

const getDeployment = byDeployment((ctx, p, d, op) => ({ status: 200, operation: op, body: deployment(ctx.webUrl, p, d) }));

const updateDeployment = byDeployment((ctx, p, d, op) => {
  const to = (ctx.body as { status: string }).status;
  const { event, allowed } = ctx.spec.transitionAllowed(d.status, to);
  if (!allowed) {
    ctx.violation({ operation: op, kind: 'semantic', errors: [`${d.status} → ${to}: GitLab refuses it`], data: ctx.body });
    return validation('status', `cannot transition via "${event}"`);
  }
  ctx.book.setStatus(p, d, to);
  return { status: 200, operation: op, body: deployment(ctx.webUrl, p, d), didWork: true };
});

const listEnvironments: Handler = (ctx, { project: p, op }) => {
  const q = ctx.query;
  if (q.name !== undefined && q.search !== undefined) return { status: 400, body: { error: 'name, search are mutually exclusive' } };
  const found = p.environments.filter(
    (e) =>
      (q.name === undefined || e.name === q.name) &&
      (q.search === undefined || e.name.includes(q.search)) &&
      (q.states === undefined || e.state === q.states),
  );
  const { page, headers } = gitlabPage(found, q, ctx.selfUrl);
  return { status: 200, operation: op, headers, body: page.map((e) => environment(ctx.webUrl, p, e)) };
};

const getEnvironment = byEnvironment((ctx, p, e, op) => ({ status: 200, operation: op, body: environment(ctx.webUrl, p, e) }));

const UPDATABLE = ['external_url', 'tier', 'kubernetes_namespace', 'flux_resource_path', 'cluster_agent_id', 'description'] as const;

const updateEnvironment = byEnvironment((ctx, p, e, op) => {
  const b = (ctx.body ?? {}) as Record<string, unknown>;
  const url = b.external_url;
  if (typeof url === 'string' && url !== '' && !/^https?:\/\/[^/\s]+/.test(url))
    return validation('external_url', 'is blocked: Only allowed schemes are http, https');
  // Environments::UpdateService: an agent the project may not use is refused before anything changes.
  const agent = b.cluster_agent_id;
  if (typeof agent === 'number' && p.facts.agents !== undefined && !p.facts.agents.includes(agent))
    return { status: 400, body: { message: '400 Bad request - Unauthorized to access the cluster agent in this project' } };
  // The model's absence validations: a namespace needs an agent, a Flux resource path a namespace.
  const after = { ...e, ...Object.fromEntries(UPDATABLE.filter((k) => b[k] !== undefined).map((k) => [k, b[k]])) };
  if (after.kubernetes_namespace !== null && after.cluster_agent_id === null) return validation('kubernetes_namespace', 'must be blank');
  if (after.flux_resource_path !== null && after.kubernetes_namespace === null) return validation('flux_resource_path', 'must be blank');
  Object.assign(e, after, { updatedAt: ctx.book.now() });
  return { status: 200, operation: op, body: environment(ctx.webUrl, p, e), didWork: true };
});

const stopEnvironment = byEnvironment((ctx, p, e, op) => {
  const changed = e.state !== 'stopped';
  e.state = 'stopped';
  // Documented 201; GitLab answers 200 (lib/api/environments.rb `status 200`).
  return { status: 200, operation: op, body: environment(ctx.webUrl, p, e), didWork: changed };
});

const commitRefs: Handler = (ctx, { project: p, arg, op }) => {
  const refs = ctx.book.refsOf(p, arg);
  if (refs === undefined) return { status: 404, body: { message: '404 Commit Not Found' } };
  const type = ctx.query.type ?? 'branch';
  const all = [
    ...(type === 'tag' ? [] : refs.branches.map((name) => ({ type: 'branch', name }))),
    ...(type === 'branch' ? [] : refs.tags.map((name) => ({ type: 'tag', name }))),
  ];
  const { page, headers } = gitlabPage(all, ctx.query, ctx.selfUrl);
  return { status: 200, operation: op, headers, body: page };
};

const getProject: Handler = (ctx, { project: p, op }) => ({ status: 200, operation: op, body: project(ctx.webUrl, p) });

interface Route {
  method: string;
  pattern: RegExp;
  op: OperationId;
  /** What Grape checks before the endpoint runs. */
  params?: 'body' | 'query';
  handler: Handler;
}

const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/projects\/([^/]+)$/, op: 'getApiV4ProjectsId', handler: getProject },
  {
    method: 'GET',
    pattern: /^\/projects\/([^/]+)\/deployments$/,
    op: 'getApiV4ProjectsIdDeployments',
    params: 'query',
    handler: listDeployments,
  },
  {
    method: 'POST',
    pattern: /^\/projects\/([^/]+)\/deployments$/,
    op: 'postApiV4ProjectsIdDeployments',
    params: 'body',
    handler: createDeployment,
  },
  {
    method: 'GET',
    pattern: /^\/projects\/([^/]+)\/deployments\/(\d+)$/,
    op: 'getApiV4ProjectsIdDeploymentsDeploymentId',
    handler: getDeployment,
  },
  {
    method: 'PUT',
    pattern: /^\/projects\/([^/]+)\/deployments\/(\d+)$/,
    op: 'putApiV4ProjectsIdDeploymentsDeploymentId',
    params: 'body',
    handler: updateDeployment,
  },
  {
    method: 'GET',
    pattern: /^\/projects\/([^/]+)\/environments$/,
    op: 'getApiV4ProjectsIdEnvironments',
    params: 'query',
    handler: listEnvironments,
  },
  {
    method: 'GET',
    pattern: /^\/projects\/([^/]+)\/environments\/(\d+)$/,
    op: 'getApiV4ProjectsIdEnvironmentsEnvironmentId',
    handler: getEnvironment,
  },
  {
    method: 'PUT',
    pattern: /^\/projects\/([^/]+)\/environments\/(\d+)$/,
    op: 'putApiV4ProjectsIdEnvironmentsEnvironmentId',
    params: 'body',
    handler: updateEnvironment,
  },
  {
    method: 'POST',
    pattern: /^\/projects\/([^/]+)\/environments\/(\d+)\/stop$/,
    op: 'postApiV4ProjectsIdEnvironmentsEnvironmentIdStop',
    params: 'body',
    handler: stopEnvironment,
  },
  {
    method: 'GET',
    pattern: /^\/projects\/([^/]+)\/repository\/commits\/([^/]+)\/refs$/,
    op: 'getApiV4ProjectsIdRepositoryCommitsShaRefs',
    params: 'query',
    handler: commitRefs,
  },
];

/**
 * A request after authentication: `GET /user`, else the project route: 404 for an unknown route or a
 * project the user cannot see, 403 for a write by a Reporter, else the endpoint.
 */
export function route(ctx: RouteContext, method: string, path: string): Reply {
  if (method === 'GET' && path === '/user') return { status: 200, operation: 'getApiV4User', body: currentUser(ctx.webUrl, ctx.username) };
  for (const r of ROUTES) {
    const m = r.method === method ? r.pattern.exec(path) : null;
    if (m === null) continue;
    const [, id = '', arg = ''] = m.map((s) => decodeURIComponent(s));
    const p = ctx.book.project(id);
    if (p === undefined || (p.facts.members !== undefined && !p.facts.members.includes(ctx.username)))
      return error(ctx, 404, 'projectNotFound.404');
    if (r.method !== 'GET' && p.facts.reporters?.includes(ctx.username) === true) return error(ctx, 403, 'forbidden.403');
    const refused = r.params === undefined ? undefined : params(ctx, r.op, r.params);
    return refused ?? r.handler(ctx, { project: p, arg, op: r.op });
  }
  return { status: 404, body: { error: '404 Not Found' } };
}
