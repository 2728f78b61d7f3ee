/**
 * The GitLab REST calls the bridge makes (API v4), over the forge HTTP layer (`gitlab-http.ts`):
 * the credential check, a project's default branch, deployments (create, read, update, list by
 * environment and status), an environment by name, its update and stop, and the branches holding a commit.
 * Projects are addressed by URL-encoded full path. Lists follow `x-next-page`, else `Link` rel="next",
 * up to a named number of pages. No retries here: the queue retries, by `classifyGitLabFailure`.
 */
import { GitLabError, type GitLabOperation } from './gitlab-error.js';
import { gitlabRequest, type GitLabAnswer, type GitLabHttpOptions, type GitLabRequest } from './gitlab-http.js';
import type {
  DeploymentFilter,
  GitLabDeployment,
  GitLabEnvironment,
  GitLabProject,
  GitLabStatus,
  GitLabUser,
  EnvironmentChanges,
  NewDeployment,
} from './gitlab-types.js';
import { projectId } from './gitlab-url.js';

/** Items per page asked for: GitLab's largest. */
export const PAGE_SIZE = 100;
/** Pages read at most by one list call: the 500 newest deployments of an environment in a status, 500 branches of a commit. */
export const MAX_PAGES = 5;

const short = (sha: string) => sha.slice(0, 7);

export class GitLabClient {
  constructor(private readonly o: GitLabHttpOptions) {}

  /** The credential check (`GET /user`): the token's user, or a GitLabError (401 for a bad token). */
  async currentUser(): Promise<GitLabUser> {
    const res = await gitlabRequest(this.o, { op: 'currentUser', what: 'check GITLAB_TOKEN (GET /user)', method: 'GET', path: '/user' });
    return res.data as GitLabUser;
  }

  /** A project (`GET /projects/:id`), for its id and default branch. */
  async project(path: string): Promise<GitLabProject> {
    const res = await gitlabRequest(this.o, {
      op: 'getProject',
      what: `read project ${path}`,
      method: 'GET',
      path: `/projects/${projectId(path)}`,
    });
    return res.data as GitLabProject;
  }

  /** Creates a deployment; GitLab creates the environment when it is new. */
  async createDeployment(path: string, body: NewDeployment): Promise<GitLabDeployment> {
    const what = `create ${body.status} deployment of ${path}@${short(body.sha)} to ${body.environment}`;
    const res = await gitlabRequest(this.o, {
      op: 'createDeployment',
      what,
      method: 'POST',
      path: `/projects/${projectId(path)}/deployments`,
      body,
    });
    return res.data as GitLabDeployment;
  }

  /** One deployment (`GET …/deployments/:id`): its status as GitLab has it. */
  async deployment(path: string, id: number): Promise<GitLabDeployment> {
    const res = await gitlabRequest(this.o, {
      op: 'getDeployment',
      what: `read deployment ${id} of ${path}`,
      method: 'GET',
      path: `/projects/${projectId(path)}/deployments/${id}`,
    });
    return res.data as GitLabDeployment;
  }

  /** Sets a deployment's status (the caller never asks for a transition GitLab refuses: see gitlab-lifecycle). */
  async updateDeployment(path: string, id: number, status: GitLabStatus): Promise<GitLabDeployment> {
    const what = `set deployment ${id} of ${path} to ${status}`;
    const res = await gitlabRequest(this.o, {
      op: 'updateDeployment',
      what,
      method: 'PUT',
      path: `/projects/${projectId(path)}/deployments/${id}`,
      body: { status },
    });
    return res.data as GitLabDeployment;
  }

  /** An environment's deployments in one status, newest first (ordered by id: GitLab's `updated_*` filters need their own order). */
  async listDeployments(path: string, filter: DeploymentFilter): Promise<GitLabDeployment[]> {
    const query = { environment: filter.environment, status: filter.status, order_by: 'id', sort: 'desc' };
    const what = `list ${filter.status} deployments of ${path} in ${filter.environment}`;
    return this.list<GitLabDeployment>('listDeployments', what, `/projects/${projectId(path)}/deployments`, query);
  }

  /** The environment of that exact name, or null when GitLab has none (yet: the first deployment creates it). */
  async environment(path: string, name: string): Promise<GitLabEnvironment | null> {
    const what = `find environment ${name} of ${path}`;
    const found = await this.list<GitLabEnvironment>('listEnvironments', what, `/projects/${projectId(path)}/environments`, { name });
    return found.find((e) => e.name === name) ?? null;
  }

  /** Changes what GitLab cannot learn from an API deployment: external_url, tier, the Kubernetes fields. */
  async updateEnvironment(path: string, id: number, changes: EnvironmentChanges): Promise<GitLabEnvironment> {
    const res = await gitlabRequest(this.o, {
      op: 'updateEnvironment',
      what: `update environment ${id} of ${path}`,
      method: 'PUT',
      path: `/projects/${projectId(path)}/environments/${id}`,
      body: changes,
    });
    return res.data as GitLabEnvironment;
  }

  /** Stops an environment (a closed preview). */
  async stopEnvironment(path: string, id: number): Promise<GitLabEnvironment> {
    const res = await gitlabRequest(this.o, {
      op: 'stopEnvironment',
      what: `stop environment ${id} of ${path}`,
      method: 'POST',
      path: `/projects/${projectId(path)}/environments/${id}/stop`,
    });
    return res.data as GitLabEnvironment;
  }

  /** The branches holding a commit (`commits/:sha/refs?type=branch`); a 404 means GitLab does not have the commit. */
  async branchesContaining(path: string, sha: string): Promise<string[]> {
    const what = `list branches of ${path} holding ${short(sha)}`;
    const refs = await this.list<{ type: string; name: string }>(
      'commitRefs',
      what,
      `/projects/${projectId(path)}/repository/commits/${encodeURIComponent(sha)}/refs`,
      { type: 'branch' },
    );
    return refs.filter((r) => r.type === 'branch').map((r) => r.name);
  }

  /** One request of another part of the bridge (merge request notes: gitlab-comments.ts), on the same HTTP layer. */
  send(r: GitLabRequest): Promise<GitLabAnswer> {
    return gitlabRequest(this.o, r);
  }

  /** Every item of a list, page after page, up to MAX_PAGES. */
  private async list<T>(op: GitLabOperation, what: string, path: string, query: Record<string, string | undefined>): Promise<T[]> {
    const out: T[] = [];
    let page: number | undefined = 1;
    for (let read = 0; page !== undefined && read < MAX_PAGES; read++) {
      const res = await gitlabRequest(this.o, { op, what, method: 'GET', path, query: { ...query, per_page: PAGE_SIZE, page } });
      if (!Array.isArray(res.data)) throw new GitLabError(`${what}: the answer is not a list`, undefined, { operation: op });
      out.push(...(res.data as T[]));
      page = nextPageOf(res.headers, page);
    }
    return out;
  }
}

/** The next page: `x-next-page` (empty on the last), else the `Link` header's rel="next" (GitLab leaves x-* out past 10,000 items). */
export function nextPageOf(headers: Headers, page: number): number | undefined {
  const header = headers.get('x-next-page');
  const link = /<([^>]+)>\s*;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1];
  const raw =
    header !== null && header !== '' ? header : link !== undefined && URL.canParse(link) ? new URL(link).searchParams.get('page') : null;
  const n = Number(raw ?? NaN);
  return Number.isInteger(n) && n > page ? n : undefined;
}
