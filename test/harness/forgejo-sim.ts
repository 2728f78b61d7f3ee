/**
 * A Forgejo (and Gitea) simulator for the commit-status API: a real HTTP server on loopback that
 * validates every request against Forgejo's swagger (test/fixtures/forgejo-openapi-statuses.json),
 * answers like Forgejo (requests say `state`, answers `status`; ids count up per commit; newest
 * first, `page`/`limit` with `Link` and `X-Total-Count`; 401 for a missing or bad token, reads
 * included; 404 for an unknown repository; 500 for a status on a commit the repository lacks), can
 * sit under a sub-path, and injects faults like the GitHub simulator (429/503 with Retry-After, 5xx,
 * answers lost after the work, hangs, resets). Its repositories are private: an anonymous read is
 * refused (401) except `GET /version`. Also issue comments (forgejo-sim/comments.ts) and single
 * commit reads with their dates (forgejo-sim/commits.ts over the shared CommitBook).
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorFault } from './github-sim/faults.js';
import { dispatch, repoExists } from './forgejo-sim/dispatch.js';
import type { ForgejoSimulatorOptions, RecordedRequest } from './forgejo-sim/options.js';
import type { Reply, RouteContext, Violation } from './forgejo-sim/routes.js';
import { compileSwagger, loadSwagger, type SwaggerValidators } from './forgejo-sim/spec.js';
import { StatusBook } from './forgejo-sim/state.js';
import { ForgejoConversation, type FjComment, type FjPullRequest } from './forgejo-sim/comments.js';
import { COMMIT_PATH, ForgejoCommits } from './forgejo-sim/commits.js';
import { CommitBook } from './commit-book.js';
import { apiError, type Site, type StoredStatus } from './forgejo-sim/wire.js';
import { SimServer, SimulatorBase, pathBelow, type ForgeSimulatorFace, type SimAdapter } from './sim-server.js';

export type { Fault, FaultKind } from './github-sim/faults.js';
export type { RequestHook } from './github-sim/hooks.js';
export type { ForgejoSimulatorOptions, RecordedRequest } from './forgejo-sim/options.js';
export type { RepoFacts, Violation } from './forgejo-sim/routes.js';
export type { StoredStatus } from './forgejo-sim/wire.js';
export type { CommitDates } from './commit-book.js';

/** `apiUrl` is `${url}/api/v1`; `writes()` are the POST requests that stored a status. */
export interface ForgejoSimulator extends ForgeSimulatorFace<RecordedRequest, Violation> {
  /** A commit's statuses, oldest first. */
  statuses(owner: string, repo: string, sha: string): StoredStatus[];
  /** Opens (or changes) pull request `index` for the comment endpoints. */
  pullRequest(owner: string, repo: string, index: number, pr?: Partial<FjPullRequest>): void;
  /** Pull request `index`'s comments, oldest first. */
  comments(owner: string, repo: string, index: number): FjComment[];
  /** Client requests that wrote a comment (created or edited). */
  commentWrites(): RecordedRequest[];
}

/** A 429 (or a proxy's 503) with `Retry-After`: delta seconds, or an HTTP date given as a string. */
export function retryAfterFault(retryAfter: number | string, status: 429 | 503 = 429): ErrorFault {
  return { status, headers: { 'retry-after': String(retryAfter) }, body: status === 429 ? 'Too Many Requests' : 'Service Unavailable' };
}

const API_PATH = '/api/v1';

class Simulator extends SimulatorBase<Reply, RecordedRequest> implements ForgejoSimulator, SimAdapter<Reply, RecordedRequest> {
  url = '';
  apiUrl = '';
  readonly violations: Violation[] = [];
  readonly server = new SimServer<Reply, RecordedRequest>(this);
  private readonly book = new StatusBook();
  private readonly conversation = new ForgejoConversation((v) => this.violations.push({ method: '', path: '', ...v }));
  protected readonly commitBook: CommitBook;
  private readonly commits: ForgejoCommits;
  private readonly spec: SwaggerValidators;
  readonly prefix: string;
  readonly latencyMs: number | undefined;

  constructor(private readonly options: ForgejoSimulatorOptions) {
    super();
    this.spec = compileSwagger(loadSwagger(options.fixturePath));
    this.prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
    this.latencyMs = options.latencyMs;
    this.commitBook = new CommitBook(options.defaultCommitDate, (options.clock ?? Date.now)(), COMMIT_PATH);
    this.commits = new ForgejoCommits((v) => this.violations.push({ method: 'GET', path: '', ...v }), this.commitBook);
  }

  writes(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.didWork && r.method === 'POST');
  }

  pullRequest(owner: string, repo: string, index: number, pr: Partial<FjPullRequest> = {}): void {
    this.conversation.pullRequest(owner, repo, index, pr);
  }

  comments(owner: string, repo: string, index: number): FjComment[] {
    return this.conversation.of(owner, repo, index);
  }

  commentWrites(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.didWork && /\/issues\/(?:\d+\/)?comments/.test(r.path));
  }

  statuses(owner: string, repo: string, sha: string): StoredStatus[] {
    return this.book.all(owner, repo, sha);
  }

  reset(): void {
    this.server.reset();
    this.violations.length = 0;
    this.book.clear();
    this.conversation.clear();
    this.commitBook.clear();
  }

  private get site(): Site {
    return { webUrl: this.url, apiBase: this.apiUrl };
  }

  apiPath(pathname: string): string | undefined {
    return pathBelow(`${this.prefix}${API_PATH}`, pathname);
  }

  outside(): Reply {
    return { status: 404, body: 'Not Found' };
  }

  tooLarge(): Reply {
    return { status: 413, body: apiError(this.site, 'request body too large') };
  }

  notJson(rec: RecordedRequest, raw: string): Reply {
    this.violations.push({ method: rec.method, path: rec.path, kind: 'json', errors: ['body is not JSON'], data: raw });
    return { status: 422, body: apiError(this.site, 'body is not JSON') };
  }

  crashed(rec: RecordedRequest, message: string): Reply {
    this.violations.push({ method: rec.method, path: rec.path, kind: 'response', errors: [message], data: rec.body });
    return { status: 500, body: apiError(this.site, message) };
  }

  /** The simulator's own answers must match Forgejo's response schemas too (where the swagger has one). */
  answered(rec: RecordedRequest, reply: Reply): void {
    if (reply.operation === undefined) return;
    const errors = this.spec.response(reply.operation, reply.status, reply.body);
    if (errors.length > 0)
      this.violations.push({ method: rec.method, path: rec.path, operation: reply.operation, kind: 'response', errors, data: reply.body });
  }

  /** The endpoint's answer, after authentication and the repository's existence (see dispatch). */
  answer(req: IncomingMessage, rec: RecordedRequest): Reply {
    const u = new URL(req.url ?? '/', this.url);
    const ctx: RouteContext = {
      site: this.site,
      spec: this.spec,
      facts: this.options,
      book: this.book,
      login: this.options.login ?? 'deploy-bridge',
      version: this.options.version ?? '11.0.1+gitea-1.22.0',
      selfUrl: `${u.origin}${u.pathname}`,
      now: this.options.clock ?? Date.now,
      violation: (v) => this.violations.push({ method: rec.method, path: rec.path, ...v }),
    };
    const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const repo = /^\/repos\/([^/]+)\/([^/]+)\//.exec(rec.path);
    const known = repo !== null && repoExists(this.options, repo[1] ?? '', repo[2] ?? '');
    if (token !== undefined && (this.options.tokens === undefined || this.options.tokens.includes(token)) && known) {
      const spoken =
        this.commits.answer(this.site, rec.method, rec.path, rec.query) ??
        this.conversation.answer(this.site, ctx.login, rec.method, rec.path, rec.query, rec.body ?? {});
      rec.credential = 'token';
      if (spoken !== undefined) return spoken;
    }
    const { reply, credential } = dispatch(ctx, { ...rec, authorization: req.headers.authorization }, this.options);
    rec.credential = credential;
    return reply;
  }
}

/** Starts a simulator on 127.0.0.1 with an ephemeral port. */
export async function startForgejoSimulator(options: ForgejoSimulatorOptions = {}): Promise<ForgejoSimulator> {
  const sim = new Simulator(options);
  const port = await sim.server.listen();
  sim.url = `http://127.0.0.1:${port}${sim.prefix}`;
  sim.apiUrl = `${sim.url}${API_PATH}`;
  return sim;
}
