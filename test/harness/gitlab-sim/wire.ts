/**
 * GitLab's objects as they travel on the wire (user, project, environment, deployment, ref), and its
 * list convention: `page`/`per_page` (default 20, at most 100) with `x-page`, `x-per-page`,
 * `x-next-page`, `x-prev-page` (empty when there is none), `x-total`, `x-total-pages` and `Link`.
 */
import { paginate } from '../github-sim/pagination.js';
import type { ProjectState, StoredDeployment, StoredEnvironment } from './state.js';

/** GitLab's page sizes (`Kaminari` defaults in lib/api/helpers/pagination.rb). */
const GITLAB_PAGES = { perPage: 20, maxPerPage: 100 };

const iso = (ms: number) => new Date(ms).toISOString();

/** Stable ids for the simulated users. */
export function userId(username: string): number {
  let h = 7;
  for (const c of username) h = (h * 31 + c.charCodeAt(0)) % 100_000;
  return 1000 + h;
}

export function userBasic(webUrl: string, username: string): Record<string, unknown> {
  return {
    id: userId(username),
    username,
    name: username,
    state: 'active',
    locked: false,
    avatar_url: null,
    web_url: `${webUrl}/${username}`,
  };
}

export function currentUser(webUrl: string, username: string): Record<string, unknown> {
  return {
    ...userBasic(webUrl, username),
    bot: username.startsWith('project_') || username.startsWith('group_'),
    created_at: iso(1_700_000_000_000),
  };
}

export function project(webUrl: string, p: ProjectState): Record<string, unknown> {
  const path = p.facts.path;
  return {
    id: p.id,
    name: path.split('/').pop(),
    path: path.split('/').pop(),
    path_with_namespace: path,
    default_branch: p.facts.defaultBranch ?? 'main',
    web_url: `${webUrl}/${path}`,
  };
}

function environmentBasic(e: StoredEnvironment): Record<string, unknown> {
  return { id: e.id, name: e.name, slug: e.slug, external_url: e.external_url, created_at: iso(e.createdAt), updated_at: iso(e.updatedAt) };
}

export function deployment(webUrl: string, p: ProjectState, d: StoredDeployment): Record<string, unknown> {
  const env = p.environments.find((e) => e.id === d.environmentId);
  return {
    id: d.id,
    iid: d.iid,
    ref: d.ref,
    sha: d.sha,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
    finished_at: d.finishedAt === null ? null : iso(d.finishedAt),
    status: d.status,
    user: userBasic(webUrl, d.user),
    environment: env === undefined ? null : environmentBasic(env),
    // Deployments made through the API have no CI job.
    deployable: null,
  };
}

export function environment(webUrl: string, p: ProjectState, e: StoredEnvironment): Record<string, unknown> {
  const last = p.deployments.filter((d) => d.environmentId === e.id).at(-1);
  return {
    ...environmentBasic(e),
    tier: e.tier,
    state: e.state,
    description: e.description,
    kubernetes_namespace: e.kubernetes_namespace,
    flux_resource_path: e.flux_resource_path,
    cluster_agent: e.cluster_agent_id === null ? null : { id: e.cluster_agent_id, name: `agent-${e.cluster_agent_id}` },
    auto_stop_at: null,
    auto_stop_setting: 'always',
    project: project(webUrl, p),
    last_deployment: last === undefined ? null : deployment(webUrl, p, last),
  };
}

const positive = (raw: string | undefined): number | undefined => {
  const n = Number.parseInt(raw ?? '', 10);
  return n >= 1 ? n : undefined;
};

/** One page of `items`, GitLab's way. */
export function gitlabPage<T>(items: T[], query: Record<string, string>, selfUrl: string): { page: T[]; headers: Record<string, string> } {
  const { page, link } = paginate(items, query, selfUrl, GITLAB_PAGES);
  const perPage = Math.min(GITLAB_PAGES.maxPerPage, positive(query.per_page) ?? GITLAB_PAGES.perPage);
  const current = positive(query.page) ?? 1;
  const pages = Math.max(1, Math.ceil(items.length / perPage));
  const headers: Record<string, string> = {
    'x-page': String(current),
    'x-per-page': String(perPage),
    'x-next-page': current < pages ? String(current + 1) : '',
    'x-prev-page': current > 1 ? String(Math.min(current - 1, pages)) : '',
    'x-total': String(items.length),
    'x-total-pages': String(pages),
  };
  if (link !== undefined) headers.link = link;
  return { page, headers };
}
