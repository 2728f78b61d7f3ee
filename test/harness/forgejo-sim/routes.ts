/**
 * The endpoints: validate against the swagger, do the work on the StatusBook, answer in Forgejo's
 * shape and with Forgejo's quirks (checked in `routers/api/v1/repo/status.go` and the services it calls).
 */
import type { Violation as GitHubViolation } from '../github-sim/routes.js';
import type { OperationId, SwaggerValidators } from './spec.js';
import { repoKey, worstState, type NewStatus, type StatusBook } from './state.js';
import { apiError, commitStatus, notFoundBody, paginate, repository, user, type Site } from './wire.js';

/** What Forgejo's git repositories hold; keys are "owner/repo". */
export interface RepoFacts {
  /** Known commits; when set for a repository, a status on another commit answers 500, as Forgejo's GetCommit fails. */
  commits?: Record<string, string[]>;
  /** Branches (name → SHA) for the by-ref endpoints; the first is the default branch (else `main`). */
  branches?: Record<string, Record<string, string>>;
}

/** A swagger or semantic rule broken by a client request (or, kind 'response', by the simulator): GitHub's shape, by operationId. */
export type Violation = Omit<GitHubViolation, 'endpoint'> & { operation?: OperationId };

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** True when the request stored a status. */
  didWork?: boolean;
  operation?: OperationId;
}

export interface RouteContext {
  site: Site;
  spec: SwaggerValidators;
  facts: RepoFacts;
  book: StatusBook;
  login: string;
  version: string;
  /** Absolute URL of the request without its query, for Link headers. */
  selfUrl: string;
  now: () => number;
  violation(v: Omit<Violation, 'method' | 'path'>): void;
}

export interface RouteRequest {
  owner: string;
  repo: string;
  /** The `{sha}` or `{ref}` path parameter. */
  ref: string;
  query: Record<string, string>;
  body: unknown;
}

type Handler = (ctx: RouteContext, req: RouteRequest) => Reply;

const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The commit Forgejo's git would find for a SHA (a unique prefix of a known one is expanded); undefined when none. */
function findCommit(ctx: RouteContext, owner: string, repo: string, sha: string): string | undefined {
  const lower = sha.toLowerCase();
  const known = ctx.facts.commits?.[repoKey(owner, repo)]?.map((s) => s.toLowerCase());
  if (known === undefined) return FULL_SHA.test(lower) ? lower : undefined;
  const hits = known.filter((k) => k.startsWith(lower));
  return /^[0-9a-f]{4,}$/.test(lower) && hits.length === 1 ? hits[0] : undefined;
}

/** `ResolveRefOrSha`: a branch's commit, else the commit a SHA names, else the text itself (which lists nothing). */
function resolveRef(ctx: RouteContext, owner: string, repo: string, ref: string): string {
  return ctx.facts.branches?.[repoKey(owner, repo)]?.[ref] ?? findCommit(ctx, owner, repo, ref) ?? ref;
}

/** Records query problems; Forgejo ignores what it does not know, so the request goes on. */
function checkQuery(ctx: RouteContext, op: OperationId, query: Record<string, string>): void {
  const errors = ctx.spec.query(op, query);
  if (errors.length > 0) ctx.violation({ operation: op, kind: 'query', errors, data: query });
}

const createStatus: Handler = (ctx, { owner, repo, ref, body }) => {
  const op = 'repoCreateStatus';
  const errors = ctx.spec.body(op, body);
  const input = body as Partial<NewStatus>;
  if (errors.length === 0 && input.state === undefined) errors.push('state is missing: Forgejo would store a status without a state');
  if (errors.length > 0) {
    // Forgejo itself would store such a status (or fail on the database): refusing it makes the mistake loud.
    ctx.violation({ operation: op, kind: 'body', errors, data: body });
    return { status: 422, body: apiError(ctx.site, errors.join('; ')) };
  }
  const sha = findCommit(ctx, owner, repo, ref);
  // Forgejo answers an unknown commit with its generic 500, the message hidden outside development mode.
  if (sha === undefined) return { status: 500, body: apiError(ctx.site, '') };
  const stored = ctx.book.add(owner, repo, sha, input as NewStatus, ctx.login, ctx.now());
  return { status: 201, operation: op, body: commitStatus(ctx.site, owner, repo, sha, stored), didWork: true };
};

const listStatuses =
  (op: 'repoListStatuses' | 'repoListStatusesByRef'): Handler =>
  (ctx, { owner, repo, ref, query }) => {
    checkQuery(ctx, op, query);
    const sha = resolveRef(ctx, owner, repo, ref);
    const all = ctx.book.list(owner, repo, sha, query.sort, query.state);
    const { page, headers } = paginate(all, query, ctx.selfUrl);
    return { status: 200, operation: op, headers, body: page.map((s) => commitStatus(ctx.site, owner, repo, sha, s)) };
  };

const combinedStatus: Handler = (ctx, { owner, repo, ref, query }) => {
  const op = 'repoGetCombinedStatusByRef';
  checkQuery(ctx, op, query);
  const sha = resolveRef(ctx, owner, repo, ref);
  const latest = ctx.book.latestPerContext(owner, repo, sha);
  // Forgejo answers an empty object (no state, no sha) for a commit without statuses.
  if (latest.length === 0) return { status: 200, operation: op, body: {} };
  const { page, headers } = paginate(latest, query, ctx.selfUrl);
  const body = {
    state: worstState(page),
    sha,
    total_count: page.length,
    statuses: page.map((s) => commitStatus(ctx.site, owner, repo, sha, s)),
    repository: repository(ctx.site, owner, repo, defaultBranch(ctx, owner, repo)),
    url: '',
  };
  return { status: 200, operation: op, headers, body };
};

const defaultBranch = (ctx: RouteContext, owner: string, repo: string) =>
  Object.keys(ctx.facts.branches?.[repoKey(owner, repo)] ?? {})[0] ?? 'main';

const getRepo: Handler = (ctx, { owner, repo }) => ({
  status: 200,
  operation: 'repoGet',
  body: repository(ctx.site, owner, repo, defaultBranch(ctx, owner, repo)),
});

const ROUTES: Array<{ method: string; pattern: RegExp; handler: Handler }> = [
  { method: 'POST', pattern: /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([^/]+)$/, handler: createStatus },
  { method: 'GET', pattern: /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([^/]+)$/, handler: listStatuses('repoListStatuses') },
  { method: 'GET', pattern: /^\/repos\/([^/]+)\/([^/]+)\/commits\/(.+)\/statuses$/, handler: listStatuses('repoListStatusesByRef') },
  { method: 'GET', pattern: /^\/repos\/([^/]+)\/([^/]+)\/commits\/(.+)\/status$/, handler: combinedStatus },
  { method: 'GET', pattern: /^\/repos\/([^/]+)\/([^/]+)$/, handler: getRepo },
];

/** The repository endpoint for a method and API path (below `/api/v1`), with its path parameters. */
export function matchRepoRoute(method: string, path: string): { handler: Handler; owner: string; repo: string; ref: string } | undefined {
  for (const r of ROUTES) {
    const m = r.method === method ? r.pattern.exec(path) : null;
    if (m === null) continue;
    const [, owner = '', repo = '', ref = ''] = m.map((s) => decodeURIComponent(s));
    return { handler: r.handler, owner, repo, ref };
  }
  return undefined;
}

/** `GET /version` and `GET /user`, which name no repository. */
export function siteRoute(ctx: RouteContext, method: string, path: string): Reply | undefined {
  if (method === 'GET' && path === '/version') return { status: 200, operation: 'getVersion', body: { version: ctx.version } };
  if (method === 'GET' && path === '/user') return { status: 200, operation: 'userGetCurrent', body: user(ctx.site, ctx.login) };
  return undefined;
}

/** Forgejo's 404 for an unknown repository or route. */
export const notFound = (site: Site): Reply => ({ status: 404, body: notFoundBody(site) });
