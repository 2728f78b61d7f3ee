/**
 * Who may ask what, in Forgejo's order: the token first (401 for none or a bad one, reads included;
 * only `GET /version` is public), then `/version` and `/user`, then the repository (404 when it does
 * not exist), then the endpoint.
 */
import { matchRepoRoute, notFound, siteRoute, type Reply, type RouteContext } from './routes.js';
import { repoKey } from './state.js';
import { apiError } from './wire.js';

/** The request as dispatch needs it; `path` is below `/api/v1`. */
export interface ApiRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The `Authorization` header: `token X` or `Bearer X`. */
  authorization: string | undefined;
}

/** Which tokens and repositories exist: tokens undefined, any; repos undefined, every repository of `owners`. */
export interface Access {
  tokens?: string[] | undefined;
  repos?: string[] | undefined;
  owners?: string[] | undefined;
}

/** The owners of a simulator started without `repos`: the one the tests' worlds name. */
export const DEFAULT_OWNERS = ['acme'];

/** Whether a repository exists: listed in `repos`, or, without `repos`, of one of `owners`; another answers 404 as on Forgejo. */
export function repoExists(access: Access, owner: string, repo: string): boolean {
  if (access.repos !== undefined) return access.repos.map((r) => r.toLowerCase()).includes(repoKey(owner, repo));
  return (access.owners ?? DEFAULT_OWNERS).map((o) => o.toLowerCase()).includes(owner.toLowerCase());
}

export function dispatch(ctx: RouteContext, req: ApiRequest, access: Access): { reply: Reply; credential: 'none' | 'token' } {
  const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.authorization ?? '')?.[1];
  const credential = token === undefined ? 'none' : 'token';
  const answer = (reply: Reply) => ({ reply, credential }) as const;
  if (token === undefined && !(req.method === 'GET' && req.path === '/version'))
    return answer({ status: 401, body: apiError(ctx.site, 'token is required') });
  if (token !== undefined && access.tokens !== undefined && !access.tokens.includes(token))
    return answer({ status: 401, body: apiError(ctx.site, 'invalid username, password or token') });
  const site = siteRoute(ctx, req.method, req.path);
  if (site !== undefined) return answer(site);
  const route = matchRepoRoute(req.method, req.path);
  if (route === undefined || !repoExists(access, route.owner, route.repo)) return answer(notFound(ctx.site));
  return answer(route.handler(ctx, { owner: route.owner, repo: route.repo, ref: route.ref, query: req.query, body: req.body ?? {} }));
}
