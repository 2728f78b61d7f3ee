/**
 * Forgejo's pull request conversation in the simulator: issues that are pull requests (open, closed, locked)
 * and their comments (every comment in one list, oldest first; create; edit), each request and answer checked
 * against `test/fixtures/forgejo-openapi-comments.json`. As Forgejo's Go sources do: an empty body is a 422,
 * only the poster edits a comment (403 with an empty body otherwise), and a locked issue refuses a comment
 * from a user who cannot write the repository's issues (`writer: false`).
 */
import { fixturePath } from '../../fixtures/locate.js';
import { compileSwagger, loadSwagger, type OperationId, type SwaggerValidators } from './spec.js';
import { repoKey } from './state.js';
import { apiError, notFoundBody, user, type Site } from './wire.js';
import type { Reply, Violation } from './routes.js';

export interface FjPullRequest {
  state: 'open' | 'closed';
  locked: boolean;
  /** The head commit (`GET …/pulls/{index}`'s `head.sha`). */
  head?: string;
}

export interface FjComment {
  id: number;
  owner: string;
  repo: string;
  index: number;
  body: string;
  login: string;
  created: string;
  updated: string;
}

const ts = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export class ForgejoConversation {
  private readonly spec: SwaggerValidators;
  readonly comments: FjComment[] = [];
  private readonly pulls = new Map<string, FjPullRequest>();
  private nextId = 501;
  /** Whether the token's user may write the repository's issues (a locked issue still takes its comments). */
  writer = false;

  constructor(private readonly violation: (v: Omit<Violation, 'method' | 'path'>) => void) {
    const swagger = loadSwagger(fixturePath('forgejo-openapi-comments.json'));
    // The comment slice has no commit statuses (compileSwagger wants a state list; this one is unused).
    this.spec = compileSwagger({ ...swagger, 'x-commit-status-states': { values: ['none'] } });
  }

  pullRequest(owner: string, repo: string, index: number, pr: Partial<FjPullRequest> = {}): void {
    const key = `${repoKey(owner, repo)}#${index}`;
    this.pulls.set(key, { ...(this.pulls.get(key) ?? { state: 'open', locked: false }), ...pr });
  }

  of(owner: string, repo: string, index: number): FjComment[] {
    return this.comments.filter((c) => repoKey(c.owner, c.repo) === repoKey(owner, repo) && c.index === index);
  }

  clear(): void {
    this.comments.length = 0;
    this.pulls.clear();
  }

  /** The answer to a comment request (path below /api/v1), or undefined when it is not one. */
  answer(site: Site, login: string, method: string, path: string, query: Record<string, string>, body: unknown): Reply | undefined {
    const pull = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(path);
    if (pull !== null && method === 'GET') {
      const [, owner = '', repo = '', n = ''] = pull;
      const pr = this.pulls.get(`${repoKey(owner, repo)}#${n}`);
      if (pr === undefined) return { status: 404, body: notFoundBody(site) };
      return this.checked('repoGetPullRequest', { status: 200, body: this.pull(site, owner, repo, Number(n), pr) });
    }
    const issue = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/comments)?$/.exec(path);
    const edit = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(path);
    if (issue !== null) {
      const [, owner = '', repo = '', n = '', comments] = issue;
      const index = Number(n);
      const pr = this.pulls.get(`${repoKey(owner, repo)}#${index}`);
      if (pr === undefined) return { status: 404, body: notFoundBody(site) };
      if (comments === undefined && method === 'GET')
        return this.checked('issueGetIssue', { status: 200, body: this.issue(site, owner, repo, index, pr) });
      if (method === 'GET') {
        const problems = this.spec.query('issueGetComments' as OperationId, query);
        if (problems.length > 0) return this.invalid(site, 'query', problems, query);
        const list = this.of(owner, repo, index).map((c) => this.wire(site, c));
        return this.checked('issueGetComments', { status: 200, body: list, headers: { 'x-total-count': String(list.length) } });
      }
      if (method === 'POST') {
        const bad = this.badBody(site, 'issueCreateComment', body);
        if (bad !== undefined) return bad;
        if (pr.locked && !this.writer) return { status: 403, body: apiError(site, 'You cannot comment on a locked issue.') };
        const at = ts();
        const c: FjComment = {
          id: this.nextId++,
          owner,
          repo,
          index,
          body: (body as { body: string }).body,
          login,
          created: at,
          updated: at,
        };
        this.comments.push(c);
        return { ...this.checked('issueCreateComment', { status: 201, body: this.wire(site, c) }), didWork: true };
      }
    }
    if (edit !== null && method === 'PATCH') {
      const [, owner = '', repo = '', id = ''] = edit;
      const bad = this.badBody(site, 'issueEditComment', body);
      if (bad !== undefined) return bad;
      const c = this.comments.find((x) => x.id === Number(id) && repoKey(x.owner, x.repo) === repoKey(owner, repo));
      if (c === undefined) return { status: 404, body: notFoundBody(site) };
      if (c.login !== login) return { status: 403, body: '' };
      c.body = (body as { body: string }).body;
      c.updated = ts();
      return { ...this.checked('issueEditComment', { status: 200, body: this.wire(site, c) }), didWork: true };
    }
    return undefined;
  }

  private badBody(site: Site, op: string, body: unknown): Reply | undefined {
    const problems = this.spec.body(op as OperationId, body);
    if (problems.length > 0) return this.invalid(site, 'body', problems, body);
    const text = (body as { body?: unknown }).body;
    if (typeof text !== 'string' || text === '') {
      this.violation({ kind: 'semantic', errors: ['[Body]: Required'], data: body });
      return { status: 422, body: { message: '[Body]: Required', url: `${site.webUrl}/api/swagger` } };
    }
    return undefined;
  }

  private invalid(site: Site, kind: Violation['kind'], errors: string[], data: unknown): Reply {
    this.violation({ kind, errors, data });
    return { status: 422, body: apiError(site, errors.join('; ')) };
  }

  private checked(op: string, reply: Reply): Reply {
    const errors = this.spec.response(op as OperationId, reply.status, reply.body);
    if (errors.length > 0) this.violation({ kind: 'response', errors, data: reply.body });
    return reply;
  }

  private wire(site: Site, c: FjComment) {
    return {
      id: c.id,
      html_url: `${site.webUrl}/${c.owner}/${c.repo}/pulls/${c.index}#issuecomment-${c.id}`,
      pull_request_url: `${site.webUrl}/${c.owner}/${c.repo}/pulls/${c.index}`,
      issue_url: '',
      user: user(site, c.login),
      original_author: '',
      original_author_id: 0,
      body: c.body,
      assets: [],
      created_at: c.created,
      updated_at: c.updated,
    };
  }

  /** A pull request as `GET /repos/{owner}/{repo}/pulls/{index}` answers it (the fields the bridge reads, and a few more). */
  private pull(site: Site, owner: string, repo: string, index: number, pr: FjPullRequest) {
    const branch = (ref: string, sha: string) => ({ label: ref, ref, sha, repo_id: 1 });
    return {
      id: 8000 + index,
      url: `${site.webUrl}/${owner}/${repo}/pulls/${index}`,
      html_url: `${site.webUrl}/${owner}/${repo}/pulls/${index}`,
      number: index,
      user: user(site, 'octocat'),
      title: `Pull request ${index}`,
      body: '',
      state: pr.state,
      is_locked: pr.locked,
      draft: false,
      merged: false,
      head: branch(`pr-${index}`, pr.head ?? ''),
      base: branch('main', '0'.repeat(40)),
      created_at: '2026-01-01T00:00:00Z',
      updated_at: ts(),
    };
  }

  private issue(site: Site, owner: string, repo: string, index: number, pr: FjPullRequest) {
    return {
      id: 7000 + index,
      url: `${site.apiBase}/repos/${owner}/${repo}/issues/${index}`,
      html_url: `${site.webUrl}/${owner}/${repo}/pulls/${index}`,
      number: index,
      user: user(site, 'octocat'),
      original_author: '',
      original_author_id: 0,
      title: `Pull request ${index}`,
      body: '',
      ref: '',
      assets: [],
      labels: [],
      state: pr.state,
      is_locked: pr.locked,
      comments: this.of(owner, repo, index).length,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: ts(),
      // Forgejo sends null for unset ones; swagger 2.0 cannot say nullable, so they are left out here.
      ...(pr.state === 'closed' ? { closed_at: ts() } : {}),
      pull_request: { merged: false, draft: false, html_url: `${site.webUrl}/${owner}/${repo}/pulls/${index}` },
      repository: { id: 1, name: repo, owner, full_name: `${owner}/${repo}` },
      pin_order: 0,
    };
  }
}
