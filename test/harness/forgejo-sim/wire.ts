/**
 * Forgejo's objects and list conventions as they travel on the wire: `CommitStatus` (with `status`,
 * where the request said `state`, and `id` = the status's index on its commit), `User`, `Repository`,
 * the `APIError`/`APINotFound` bodies, and page/limit pagination with `Link` and `X-Total-Count`.
 */

/** Forgejo's page size when `limit` is missing or not positive (`setting.API.DefaultPagingNum`). */
export const DEFAULT_LIMIT = 30;
/** Forgejo's largest page (`setting.API.MaxResponseItems`): a larger `limit` is cut to it. */
export const MAX_LIMIT = 50;

/** One stored status, as the simulator keeps it. */
export interface StoredStatus {
  /** The status's index on its commit: 1, 2, … */
  index: number;
  state: string;
  context: string;
  description: string;
  target_url: string;
  /** Whole seconds, like Forgejo's `created_unix`. */
  createdUnix: number;
  creator: string;
}

/** Where the simulated server lives: its web base URL (with any sub-path) and API root. */
export interface Site {
  webUrl: string;
  apiBase: string;
}

const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The account the simulator answers as (`GET /user`, and the creator of statuses). */
export function user(site: Site, login: string): Record<string, unknown> {
  return {
    id: 1000 + (login.length % 97),
    login,
    login_name: '',
    full_name: login,
    email: `${login}@noreply.forgejo.invalid`,
    avatar_url: `${site.webUrl}/avatars/${login}`,
    html_url: `${site.webUrl}/${login}`,
    language: 'en-US',
    is_admin: false,
    restricted: false,
    active: true,
    prohibit_login: false,
    visibility: 'public',
    created: iso(1_700_000_000),
    last_login: iso(1_700_000_000),
  };
}

export function repository(site: Site, owner: string, name: string, defaultBranch: string): Record<string, unknown> {
  return {
    id: 1,
    owner: user(site, owner),
    name,
    full_name: `${owner}/${name}`,
    private: true,
    fork: false,
    empty: false,
    archived: false,
    html_url: `${site.webUrl}/${owner}/${name}`,
    url: `${site.apiBase}/repos/${owner}/${name}`,
    clone_url: `${site.webUrl}/${owner}/${name}.git`,
    default_branch: defaultBranch,
    object_format_name: 'sha1',
    permissions: { admin: false, push: true, pull: true },
    created_at: iso(1_700_000_000),
    updated_at: iso(1_700_000_000),
  };
}

export function commitStatus(site: Site, owner: string, repo: string, sha: string, s: StoredStatus): Record<string, unknown> {
  return {
    id: s.index,
    status: s.state,
    context: s.context,
    description: s.description,
    target_url: s.target_url,
    url: `${site.apiBase}/repos/${owner}/${repo}/statuses/${sha}`,
    created_at: iso(s.createdUnix),
    updated_at: iso(s.createdUnix),
    creator: user(site, s.creator),
  };
}

/** Forgejo's `APIError`: its message, and the swagger URL. */
export const apiError = (site: Site, message: string) => ({ message, url: `${site.webUrl}/api/swagger` });

/** Forgejo's `APINotFound` ("The target couldn't be found." in English). */
export const notFoundBody = (site: Site) => ({ errors: [], message: "The target couldn't be found.", url: `${site.webUrl}/api/swagger` });

const positive = (raw: string | undefined): number => {
  const n = raw === undefined ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/**
 * One page of `items`, Forgejo's way: `page` from 1, `limit` defaulting to 30 and capped at 50; a
 * `Link` header with rel next, last, first, prev (joined by ","), and `X-Total-Count`.
 */
export function paginate<T>(items: T[], query: Record<string, string>, selfUrl: string): { page: T[]; headers: Record<string, string> } {
  const limit = Math.min(MAX_LIMIT, positive(query.limit) || DEFAULT_LIMIT);
  const page = positive(query.page) || 1;
  const last = Math.max(1, Math.ceil(items.length / limit));
  const at = (n: number) => {
    const u = new URL(selfUrl);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    u.searchParams.set('page', String(n));
    return `<${u.toString()}>`;
  };
  const links: string[] = [];
  if (page < last) links.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) links.push(`${at(1)}; rel="first"`, `${at(Math.min(page - 1, last))}; rel="prev"`);
  const headers: Record<string, string> = { 'x-total-count': String(items.length) };
  if (links.length > 0) headers.link = links.join(',');
  return { page: items.slice((page - 1) * limit, page * limit), headers };
}
