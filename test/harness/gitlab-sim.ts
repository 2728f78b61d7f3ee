/**
 * A GitLab simulator for the deployments and environments API (v4): a real HTTP server on loopback
 * that validates every request against GitLab's OpenAPI description (test/fixtures/gitlab-openapi-
 * deployments.json) and answers like GitLab: `PRIVATE-TOKEN` (or `Authorization: Bearer`) auth with
 * 401 otherwise, projects by URL-encoded full path or id (404 when unknown or hidden, 403 for a
 * Reporter's write), the deployment status machine (400 in GitLab's shape for a refused transition,
 * an unknown commit or ref), environments created on demand, `DeploymentsFinder`'s list rules,
 * `x-next-page`/`Link` pagination, a sub-path install, and faults like the other simulators
 * (429 with `Retry-After`/`RateLimit-Reset`, 5xx, answers lost after the work, hangs, resets).
 * Also merge request notes (gitlab-sim/notes.ts) and single commit reads with their dates
 * (gitlab-sim/commits.ts over the shared CommitBook).
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorFault } from './github-sim/faults.js';
import { route, type Reply, type Violation } from './gitlab-sim/routes.js';
import { compileSpec, loadOpenApi, type SpecValidators } from './gitlab-sim/spec.js';
import { GitLabConversation, type SimMergeRequest, type StoredNote } from './gitlab-sim/notes.js';
import { COMMIT_PATH, GitLabCommits } from './gitlab-sim/commits.js';
import { CommitBook } from './commit-book.js';
import { GitLabBook, type ProjectState, type SimProject } from './gitlab-sim/state.js';
import { SimServer, SimulatorBase, pathBelow, type ForgeSimulatorFace, type SimAdapter, type SimRecord } from './sim-server.js';

export type { Fault, FaultKind } from './github-sim/faults.js';
export type { RequestHook } from './github-sim/hooks.js';
export type { Violation } from './gitlab-sim/routes.js';
export type { SimProject, StoredDeployment, StoredEnvironment } from './gitlab-sim/state.js';
export type { MergeRequestState, SimMergeRequest, StoredNote } from './gitlab-sim/notes.js';
export type { CommitDates } from './commit-book.js';

export interface GitLabSimulatorOptions {
  /** Accepted tokens → their user's username; when omitted any token is user `deploy-bridge`; none still gets 401. */
  tokens?: Record<string, string>;
  /**
   * The projects that exist; when omitted every `group/…/project` path below one of `groups` exists, holding any
   * 40-hex SHA on `main`. Any other path answers 404, as GitLab does for a project that does not exist.
   */
  projects?: SimProject[];
  /** Without `projects`: the top-level groups whose every project path exists (default DEFAULT_GROUPS). */
  groups?: string[];
  /** A sub-path install: the web base URL ends in it, the API is below it (e.g. "/gitlab" → "/gitlab/api/v4"). */
  pathPrefix?: string;
  latencyMs?: number;
  /** Epoch milliseconds for timestamps; default Date.now. */
  clock?: () => number;
  fixturePath?: string;
  /** Committer and author date of every full SHA not registered with `commit()` (default: an hour before the start, whole seconds). */
  defaultCommitDate?: string;
  /**
   * The loopback address to listen on (default 127.0.0.1). Another one (127.0.0.2) gives GitLab a host
   * of its own beside a Forgejo simulator: the bridge routes repositories to forges by host.
   */
  host?: string;
}

/** One request as the simulator saw it; `path` is below `/api/v4` (the project id as sent, encoded), without the query. */
export interface RecordedRequest extends SimRecord {
  credential?: 'none' | 'private-token' | 'bearer';
  /** The token's user, once authenticated. */
  username?: string;
}

/** `apiUrl` is `${url}/api/v4`; `writes()` are the POST and PUT requests that changed state. */
export interface GitLabSimulator extends ForgeSimulatorFace<RecordedRequest, Violation> {
  /** A project's state (environments, deployments), by full path. */
  project(path: string): ProjectState | undefined;
  /** Opens (or changes) merge request `iid` of the project for the notes endpoints. */
  mergeRequest(path: string, iid: number, mr?: Partial<SimMergeRequest>): void;
  /** Merge request `iid`'s notes, oldest first. */
  notes(path: string, iid: number): StoredNote[];
  /** Client requests that wrote a note (created or edited). */
  noteWrites(): RecordedRequest[];
  /** Whether the token's user is a project member: a member still comments on a locked discussion (default false). */
  member: boolean;
}

/** GitLab's throttle answer (Rack::Attack): 429, plain text, `Retry-After` and the `RateLimit-*` headers. */
export function rateLimitFault(o: { retryAfterSeconds?: number; resetEpochSeconds?: number }): ErrorFault {
  const headers: Record<string, string> = { 'ratelimit-limit': '600', 'ratelimit-observed': '601', 'ratelimit-remaining': '0' };
  if (o.retryAfterSeconds !== undefined) headers['retry-after'] = String(o.retryAfterSeconds);
  if (o.resetEpochSeconds !== undefined) {
    headers['ratelimit-reset'] = String(o.resetEpochSeconds);
    headers['ratelimit-resettime'] = new Date(o.resetEpochSeconds * 1000).toUTCString();
  }
  return { status: 429, headers, body: 'Retry later\n' };
}

const API_PATH = '/api/v4';
const DEFAULT_USER = 'deploy-bridge';
/**
 * The top-level groups of a simulator started without `projects`: the ones the tests' worlds name. A path below
 * another group (`gitlab/platform/team/shop`, a sub-path mistaken for a group) does not exist.
 */
export const DEFAULT_GROUPS = ['acme', 'platform'];

class Simulator extends SimulatorBase<Reply, RecordedRequest> implements GitLabSimulator, SimAdapter<Reply, RecordedRequest> {
  url = '';
  apiUrl = '';
  readonly violations: Violation[] = [];
  readonly server = new SimServer<Reply, RecordedRequest>(this);
  readonly faultBody = { message: '500 Internal Server Error' };
  readonly latencyMs: number | undefined;
  private readonly prefix: string;
  private readonly spec: SpecValidators;
  private readonly book: GitLabBook;
  private readonly conversation: GitLabConversation;
  protected readonly commitBook: CommitBook;
  private readonly commits: GitLabCommits;

  constructor(private readonly options: GitLabSimulatorOptions) {
    super();
    this.spec = compileSpec(loadOpenApi(options.fixturePath));
    this.book = new GitLabBook(options.projects, options.clock ?? Date.now, options.groups ?? DEFAULT_GROUPS);
    this.conversation = new GitLabConversation(this.book.now);
    this.commitBook = new CommitBook(options.defaultCommitDate, (options.clock ?? Date.now)(), COMMIT_PATH);
    this.commits = new GitLabCommits(this.commitBook);
    this.prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
    this.latencyMs = options.latencyMs;
  }

  writes(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.didWork && (r.method === 'POST' || r.method === 'PUT'));
  }

  project(path: string): ProjectState | undefined {
    return this.book.all().find((p) => p.facts.path.toLowerCase() === path.toLowerCase());
  }

  mergeRequest(path: string, iid: number, mr: Partial<SimMergeRequest> = {}): void {
    const p = this.book.project(path);
    if (p === undefined) throw new Error(`the GitLab simulator has no project ${path}`);
    this.conversation.mergeRequest(p, iid, mr);
  }

  notes(path: string, iid: number): StoredNote[] {
    const p = this.project(path);
    return p === undefined ? [] : this.conversation.of(p, iid);
  }

  noteWrites(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.didWork && /\/merge_requests\/\d+\/notes/.test(r.path));
  }

  get member(): boolean {
    return this.conversation.member;
  }

  set member(v: boolean) {
    this.conversation.member = v;
  }

  reset(): void {
    this.server.reset();
    this.violations.length = 0;
    this.book.clear();
    this.conversation.clear();
    this.commitBook.clear();
  }

  apiPath(pathname: string): string | undefined {
    return pathBelow(`${this.prefix}${API_PATH}`, pathname);
  }

  outside(): Reply {
    return { status: 404, body: 'Not Found' };
  }

  tooLarge(): Reply {
    return { status: 413, body: { message: '413 Request Entity Too Large' } };
  }

  notJson(rec: RecordedRequest, raw: string): Reply {
    this.violations.push({ method: rec.method, path: rec.path, kind: 'json', errors: ['body is not JSON'], data: raw });
    return { status: 400, body: { error: 'The provided content-type is not supported.' } };
  }

  crashed(rec: RecordedRequest, message: string): Reply {
    this.violations.push({ method: rec.method, path: rec.path, kind: 'response', errors: [message], data: rec.body });
    return { status: 500, body: { message } };
  }

  answered(rec: RecordedRequest, reply: Reply): void {
    if (reply.operation === undefined) return;
    const errors = this.spec.response(reply.operation, reply.status, reply.body);
    if (errors.length > 0)
      this.violations.push({ method: rec.method, path: rec.path, operation: reply.operation, kind: 'response', errors, data: reply.body });
  }

  answer(req: IncomingMessage, rec: RecordedRequest): Reply {
    const privateToken = req.headers['private-token'];
    const bearer = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const token = typeof privateToken === 'string' && privateToken !== '' ? privateToken : bearer;
    rec.credential = token === undefined ? 'none' : token === bearer ? 'bearer' : 'private-token';
    const username = token === undefined ? undefined : this.options.tokens === undefined ? DEFAULT_USER : this.options.tokens[token];
    if (username === undefined) return { status: 401, body: this.spec.errorBody('unauthorized.401') };
    rec.username = username;
    const u = new URL(req.url ?? '/', this.url);
    const ctx = {
      spec: this.spec,
      book: this.book,
      webUrl: this.url,
      username,
      selfUrl: `${u.origin}${u.pathname}`,
      query: rec.query,
      body: rec.body,
      violation: (v: Omit<Violation, 'method' | 'path'>) => this.violations.push({ method: rec.method, path: rec.path, ...v }),
    };
    return (
      this.commits.answer(ctx, rec.method, rec.path) ??
      this.conversation.answer(ctx, rec.method, rec.path) ??
      route(ctx, rec.method, rec.path)
    );
  }
}

/** Starts a simulator on 127.0.0.1 (or `host`) with an ephemeral port. */
export async function startGitLabSimulator(options: GitLabSimulatorOptions = {}): Promise<GitLabSimulator> {
  const sim = new Simulator(options);
  const host = options.host ?? '127.0.0.1';
  const port = await sim.server.listen(host);
  sim.url = `http://${host}:${port}${(options.pathPrefix ?? '').replace(/\/+$/, '')}`;
  sim.apiUrl = `${sim.url}${API_PATH}`;
  return sim;
}
