/**
 * GitHub's pull request conversation in the simulator: issues that are pull requests (open, closed, locked),
 * their issue comments (list paged oldest first, create, edit) and `GET /user`, each request validated against
 * `test/fixtures/github-openapi-comments.json` and each answer against its response schema.
 */
import { isRecord } from '../../../src/common/json.js';
import { paginate } from './pagination.js';
import { compileSpec, loadFixture, seenBody, type EndpointKey, type SpecValidators } from './spec.js';
import { notFound, type Reply, type Violation } from './routes.js';
import { repoKey } from './state.js';
import { fixturePath } from '../../fixtures/locate.js';

const FIXTURE_FILE = 'github-openapi-comments.json';
/** GitHub refuses a comment longer than this (not in the description). */
const MAX_BODY = 65_536;

export type CommentEndpoint =
  | 'GET /repos/{owner}/{repo}/issues/{issue_number}'
  | 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments'
  | 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments'
  | 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}'
  | 'GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls'
  | 'GET /user';

/** Who sent a request: the token's user, or an App installation (its comments are performed via the App). */
export interface Commenter {
  login: string;
  id: number;
  type: 'User' | 'Bot';
  app?: { id: number; slug: string };
}

export interface SimPullRequest {
  state: 'open' | 'closed';
  locked: boolean;
  /** The head commit (for `GET …/commits/{sha}/pulls`). */
  head?: string;
}

export interface SimComment {
  id: number;
  owner: string;
  repo: string;
  issue: number;
  body: string;
  user: Commenter;
  created_at: string;
  updated_at: string;
}

/**
 * The slice's trimmed sub-schemas are permissive stubs that kept `nullable` without a `type`, which ajv refuses
 * to compile: such a stub accepts anything (null too), so its `nullable` is dropped.
 */
function permissiveStubs<T>(value: T): T {
  if (Array.isArray(value)) value.forEach(permissiveStubs);
  else if (isRecord(value)) {
    if (value.nullable === true && value.type === undefined) delete value.nullable;
    Object.values(value).forEach(permissiveStubs);
  }
  return value;
}

const ts = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export class CommentSim {
  private readonly spec: SpecValidators;
  readonly comments: SimComment[] = [];
  private readonly pulls = new Map<string, SimPullRequest>();
  private nextId = 9_000_001;

  constructor(
    private readonly url: () => string,
    private readonly violation: (v: Pick<Violation, 'kind' | 'errors' | 'data'> & { endpoint: string }) => void,
    path = fixturePath(FIXTURE_FILE),
  ) {
    this.spec = compileSpec(permissiveStubs(loadFixture(path)));
  }

  /** Opens (or changes) pull request `n` of a repository. */
  pullRequest(owner: string, repo: string, n: number, pr: Partial<SimPullRequest> = {}): void {
    const key = `${repoKey(owner, repo)}#${n}`;
    this.pulls.set(key, { ...(this.pulls.get(key) ?? { state: 'open', locked: false }), ...pr });
  }

  /** The comments of pull request `n`, oldest first. */
  of(owner: string, repo: string, n: number): SimComment[] {
    return this.comments.filter((c) => repoKey(c.owner, c.repo) === repoKey(owner, repo) && c.issue === n);
  }

  clear(): void {
    this.comments.length = 0;
    this.pulls.clear();
  }

  /** The answer to a comment request, or undefined when the path is not one of these endpoints. */
  answer(method: string, path: string, query: Record<string, string>, body: unknown, who: Commenter, selfUrl: string): Reply | undefined {
    if (method === 'GET' && path === '/user')
      return this.checked('GET /user', { status: 200, body: { login: who.login, id: who.id, type: who.type } });
    const pulls = /^\/repos\/([^/]+)\/([^/]+)\/commits\/([0-9a-f]{40})\/pulls$/.exec(path);
    if (pulls !== null && method === 'GET') {
      const ep = 'GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls';
      const errors = this.spec.query(ep as EndpointKey, query);
      if (errors.length > 0) return this.invalid(ep, 'query', errors, query);
      const [, owner = '', repo = '', sha = ''] = pulls;
      const prefix = `${repoKey(owner, repo)}#`;
      const found = [...this.pulls].filter(([k, pr]) => k.startsWith(prefix) && pr.head === sha);
      const { page, link } = paginate(
        found.map(([k, pr]) => this.pullBody(owner, repo, Number(k.slice(prefix.length)), pr)),
        query,
        selfUrl,
      );
      return this.checked(ep, { status: 200, body: page, headers: link === undefined ? {} : { link } });
    }
    const issue = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/comments)?$/.exec(path);
    const edit = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(path);
    if (issue !== null) {
      const [, owner = '', repo = '', n = '', comments] = issue;
      const pr = this.pulls.get(`${repoKey(owner, repo)}#${n}`);
      if (comments === undefined && method === 'GET') {
        const ep = 'GET /repos/{owner}/{repo}/issues/{issue_number}';
        return pr === undefined ? this.missing(ep) : this.checked(ep, { status: 200, body: this.issueBody(owner, repo, Number(n), pr) });
      }
      if (comments !== undefined && method === 'GET') {
        const ep = 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments';
        const errors = this.spec.query(ep as EndpointKey, query);
        if (errors.length > 0) return this.invalid(ep, 'query', errors, query);
        if (pr === undefined) return this.missing(ep);
        const { page, link } = paginate(
          this.of(owner, repo, Number(n)).map((c) => this.wire(c)),
          query,
          selfUrl,
        );
        return this.checked(ep, { status: 200, body: page, headers: link === undefined ? {} : { link } });
      }
      if (comments !== undefined && method === 'POST') {
        const ep = 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments';
        const refused = this.badBody(ep, body);
        if (refused !== undefined) return refused;
        if (pr === undefined) return this.missing(ep);
        if (pr.locked && who.app !== undefined) return { status: 403, body: seenBody(this.spec.fixture, 'createComment.403.locked').body };
        const at = ts();
        const c: SimComment = {
          id: this.nextId++,
          owner,
          repo,
          issue: Number(n),
          body: (body as { body: string }).body,
          user: who,
          created_at: at,
          updated_at: at,
        };
        this.comments.push(c);
        return { ...this.checked(ep, { status: 201, body: this.wire(c), headers: { location: this.commentUrl(c) } }), didWork: true };
      }
    }
    if (edit !== null && method === 'PATCH') {
      const ep = 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}';
      const [, owner = '', repo = '', id = ''] = edit;
      const refused = this.badBody(ep, body);
      if (refused !== undefined) return refused;
      const c = this.comments.find((x) => x.id === Number(id) && repoKey(x.owner, x.repo) === repoKey(owner, repo));
      if (c === undefined) return this.missing(ep);
      // Only the author may edit (the bridge has no admin rights in these tests).
      if (c.user.login !== who.login) return { status: 403, body: { message: 'Resource not accessible by integration', status: '403' } };
      c.body = (body as { body: string }).body;
      c.updated_at = ts();
      return { ...this.checked(ep, { status: 200, body: this.wire(c) }), didWork: true };
    }
    return undefined;
  }

  private badBody(ep: CommentEndpoint, body: unknown): Reply | undefined {
    const errors = this.spec.body(ep as EndpointKey, body);
    if (errors.length > 0) return this.invalid(ep, 'body', errors, body);
    const text = isRecord(body) && typeof body.body === 'string' ? body.body : '';
    if (text.trim() === '' || text.length > MAX_BODY) {
      this.violation({ endpoint: ep, kind: 'semantic', errors: ['body is blank or longer than 65536 characters'], data: body });
      return {
        status: 422,
        body: { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'invalid', field: 'body' }], status: '422' },
      };
    }
    return undefined;
  }

  private invalid(ep: CommentEndpoint, kind: Violation['kind'], errors: string[], data: unknown): Reply {
    this.violation({ endpoint: ep, kind, errors, data });
    return {
      status: 422,
      body: { message: `Invalid request.\n\n${errors.join('\n')}`, documentation_url: this.spec.docs(ep as EndpointKey), status: '422' },
    };
  }

  private missing(ep: CommentEndpoint): Reply {
    return notFound(this.spec.docs(ep as EndpointKey));
  }

  /** The simulator's own answer must match the response schema too. */
  private checked(ep: CommentEndpoint, reply: Reply): Reply {
    const errors = this.spec.response(ep as EndpointKey, reply.status, reply.body);
    if (errors.length > 0) this.violation({ endpoint: ep, kind: 'response', errors, data: reply.body });
    return reply;
  }

  private commentUrl(c: SimComment): string {
    return `${this.url()}/repos/${c.owner}/${c.repo}/issues/comments/${c.id}`;
  }

  private wire(c: SimComment) {
    return {
      id: c.id,
      node_id: `IC_${c.id}`,
      url: this.commentUrl(c),
      html_url: `https://github.com/${c.owner}/${c.repo}/pull/${c.issue}#issuecomment-${c.id}`,
      issue_url: `${this.url()}/repos/${c.owner}/${c.repo}/issues/${c.issue}`,
      body: c.body,
      user: { login: c.user.login, id: c.user.id, node_id: `U_${c.user.id}`, type: c.user.type },
      created_at: c.created_at,
      updated_at: c.updated_at,
      author_association: c.user.app ? 'NONE' : 'MEMBER',
      performed_via_github_app: c.user.app ? { id: c.user.app.id, slug: c.user.app.slug, name: c.user.app.slug } : null,
    };
  }

  /** A pull request as `GET …/commits/{sha}/pulls` lists it (the simple form). */
  private pullBody(owner: string, repo: string, n: number, pr: SimPullRequest) {
    const base = `${this.url()}/repos/${owner}/${repo}`;
    const web = `https://github.com/${owner}/${repo}/pull/${n}`;
    const link = (href: string) => ({ href });
    const side = (ref: string, sha: string) => ({
      label: `${owner}:${ref}`,
      ref,
      sha,
      repo: { id: 1, name: repo, full_name: `${owner}/${repo}`, private: false },
      user: { login: owner, id: 2, node_id: 'O_2', type: 'Organization' },
    });
    return {
      url: `${base}/pulls/${n}`,
      id: 6_000_000 + n,
      node_id: `PR_${n}`,
      html_url: web,
      diff_url: `${web}.diff`,
      patch_url: `${web}.patch`,
      issue_url: `${base}/issues/${n}`,
      commits_url: `${base}/pulls/${n}/commits`,
      review_comments_url: `${base}/pulls/${n}/comments`,
      review_comment_url: `${base}/pulls/comments{/number}`,
      comments_url: `${base}/issues/${n}/comments`,
      statuses_url: `${base}/statuses/${pr.head ?? ''}`,
      number: n,
      state: pr.state,
      locked: pr.locked,
      title: `Pull request ${n}`,
      user: { login: 'octocat', id: 1, node_id: 'U_1', type: 'User' },
      body: null,
      labels: [],
      milestone: null,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: ts(),
      closed_at: null,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      head: side(`pr-${n}`, pr.head ?? ''),
      base: side('main', '0'.repeat(40)),
      _links: {
        self: link(`${base}/pulls/${n}`),
        html: link(web),
        issue: link(`${base}/issues/${n}`),
        comments: link(`${base}/issues/${n}/comments`),
        review_comments: link(`${base}/pulls/${n}/comments`),
        review_comment: link(`${base}/pulls/comments{/number}`),
        commits: link(`${base}/pulls/${n}/commits`),
        statuses: link(`${base}/statuses/${pr.head ?? ''}`),
      },
      author_association: 'MEMBER',
      auto_merge: null,
    };
  }

  private issueBody(owner: string, repo: string, n: number, pr: SimPullRequest) {
    const base = `${this.url()}/repos/${owner}/${repo}`;
    return {
      id: 5_000_000 + n,
      node_id: `PR_${n}`,
      url: `${base}/issues/${n}`,
      repository_url: base,
      labels_url: `${base}/issues/${n}/labels{/name}`,
      comments_url: `${base}/issues/${n}/comments`,
      events_url: `${base}/issues/${n}/events`,
      html_url: `https://github.com/${owner}/${repo}/pull/${n}`,
      number: n,
      state: pr.state,
      title: `Pull request ${n}`,
      user: { login: 'octocat', id: 1, node_id: 'U_1', type: 'User' },
      labels: [],
      assignee: null,
      milestone: null,
      locked: pr.locked,
      active_lock_reason: pr.locked ? 'too heated' : null,
      comments: this.of(owner, repo, n).length,
      pull_request: {
        url: `${base}/pulls/${n}`,
        html_url: `https://github.com/${owner}/${repo}/pull/${n}`,
        diff_url: null,
        patch_url: null,
        merged_at: null,
      },
      closed_at: pr.state === 'closed' ? ts() : null,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: ts(),
      author_association: 'MEMBER',
    };
  }
}
