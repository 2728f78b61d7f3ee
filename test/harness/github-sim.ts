/**
 * A GitHub REST API simulator for the deployment endpoints: a real HTTP server on loopback that
 * speaks GitHub's wire format (so octokit talks to it unchanged), validates every request against
 * the official OpenAPI schema, applies GitHub's side effects and rate limits, and can inject faults.
 * The request pipeline (records, hooks, faults, latency) is SimServer's; this is GitHub's adapter to it.
 * Also the pull request conversation (github-sim/comments.ts) and git commit reads with their dates
 * (github-sim/commits.ts over the shared CommitBook; an installation token needs `contents` read).
 * A repository the test did not give (github-sim/known-repos.ts) answers 404 on every route, as on GitHub.
 * Used by tests, benchmarks and the demo.
 */
import type { IncomingMessage } from 'node:http';
import { SimApp, type SimAppOptions } from './github-sim/app.js';
import { faultBuilders, type Fault, type FaultBuilders } from './github-sim/faults.js';
import type { RequestHook } from './github-sim/hooks.js';
import { GITHUB_SECONDARY_WINDOWS, PrimaryLimit, WriteWindows, type LimitWindow } from './github-sim/limits.js';
import { matchRoute, notFound, type RepoFacts, type Reply, type Violation } from './github-sim/routes.js';
import { compileSpec, loadFixture, type SpecValidators } from './github-sim/spec.js';
import { SimState } from './github-sim/state.js';
import { repoExists } from './github-sim/known-repos.js';
import { answerGraphQL } from './github-sim/graphql.js';
import { PointBudget } from './github-sim/graphql-limits.js';
import { CommentSim, type SimComment, type SimPullRequest } from './github-sim/comments.js';
import { CommitSim, COMMIT_PATH } from './github-sim/commits.js';
import { CommitBook, type CommitDates } from './commit-book.js';
import type { SimDeployment, SimUser } from './github-sim/wire-types.js';
import { SimServer, SimulatorBase, pathBelow, type SimAdapter, type SimRecord } from './sim-server.js';

export { faults, type Fault, type FaultKind, type FaultBuilders } from './github-sim/faults.js';
export type { Violation, StatusCheck } from './github-sim/routes.js';
export type { Deployment, DeploymentStatus, SimDeployment, SimStatus } from './github-sim/wire-types.js';
export type { SimAppOptions, SimInstallation } from './github-sim/app.js';
export type { RequestHook, HookVerdict } from './github-sim/hooks.js';
export type { SimComment, SimPullRequest } from './github-sim/comments.js';
export type { CommitDates } from './commit-book.js';
export { DEFAULT_OWNERS } from './github-sim/known-repos.js';

export interface GitHubSimulatorOptions extends RepoFacts {
  /** Accepted tokens (`Authorization: token X` or `Bearer X`); when omitted any token is accepted, none still gets 401. */
  tokens?: string[];
  /** "owner/repo" names that exist; others answer 404 (REST, GraphQL, an App's installation look-up). */
  repos?: string[];
  /** Without `repos`: the owners whose every repository exists (default DEFAULT_OWNERS, `acme`); others answer 404. */
  owners?: string[];
  /** Serve under a path prefix, e.g. "/api/v3" like GitHub Enterprise Server. */
  pathPrefix?: string;
  /** Secondary rate limit: at most this many POST/DELETE per sliding minute (all accounts together), then 403 + retry-after. */
  writesPerMinute?: number;
  /**
   * GitHub's secondary limits on content-generating requests per account (a token, an installation): `true` for
   * GitHub's documented 80 per minute and 500 per hour, or other windows; `scale` compresses their time
   * (benchmarks). Off when unset, so tests about other things need not pace their writes. `identities` makes
   * several credentials one identity with one set of windows (several bridges on one GitHub App): a token's
   * value, or `installation <id>`, → the identity's name; others count on their own.
   */
  secondaryLimits?: boolean | { windows?: readonly LimitWindow[]; scale?: number; identities?: Readonly<Record<string, string>> };
  /** Delay every answer by this many milliseconds. */
  latencyMs?: number;
  /** Primary rate limit: requests per hour (default 5000), then 403 with x-ratelimit-remaining 0. */
  requestsPerHour?: number;
  /** GraphQL's point budget per account an hour (default 5,000, GitHub's for a token). */
  graphqlPointsPerHour?: number;
  /** Login recorded as the creator of deployments and statuses. */
  login?: string;
  /** Path of github-openapi-deployments.json; default <repo>/test/fixtures/. */
  fixturePath?: string;
  /** A GitHub App: JWTs verified with its public key, installations, installation tokens. */
  app?: SimAppOptions;
  /** Committer and author date of every full SHA not registered with `commit()` (default: an hour before the start, whole seconds). */
  defaultCommitDate?: string;
}

/** One request as the simulator saw it; `path` is without the prefix and query. */
export interface RecordedRequest extends SimRecord {
  /** How it authenticated: a token, the App's JWT, an installation token (with its installation), or nothing. */
  credential?: 'none' | 'token' | 'jwt' | 'installation';
  installationId?: number;
  /** The token presented (`credential: 'token'`): tells several clients of one simulator apart. */
  token?: string;
}

/** A running simulator. */
export interface GitHubSimulator {
  /** Base URL for octokit's `baseUrl`, including the path prefix. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Schema and rule violations seen in client requests (and in the simulator's own answers). */
  readonly violations: readonly Violation[];
  /** Rate-limit fault builders over this simulator's fixture. */
  readonly faults: FaultBuilders;
  /** The App side (issued installation tokens, revocation), when the `app` option is set. */
  readonly app: SimApp | undefined;
  /** GraphQL queries (`POST /graphql`, at `/api/graphql` under an `/api/v3` prefix as on GitHub Enterprise Server). */
  graphqlQueries(): RecordedRequest[];
  /** GraphQL's point budgets, per account (`refused`: queries answered RATE_LIMITED). */
  readonly points: PointBudget;
  /** Writes answered with a secondary rate limit (by `writesPerMinute` or `secondaryLimits`). */
  secondaryRefusals(): number;
  /** Switches the per-account secondary limits (`secondaryLimits`' windows) on or off; their counts start afresh. */
  enforceSecondaryLimits(on: boolean): void;
  /** Arms a fault for the next matching request(s). */
  inject(fault: Fault): void;
  /** Arms a hook run when the next matching request(s) arrive or are applied (e.g. to kill the client there). */
  hook(hook: RequestHook): void;
  /** Client POST/DELETE requests that changed state (GitHub's own auto_inactive statuses are not requests). */
  writes(): RecordedRequest[];
  /** Opens (or changes) pull request `n` (an issue that is a pull request) for the comment endpoints. */
  pullRequest(owner: string, repo: string, n: number, pr?: Partial<SimPullRequest>): void;
  /** Pull request `n`'s comments, oldest first. */
  comments(owner: string, repo: string, n: number): SimComment[];
  /** Client requests that wrote a comment (created or edited). */
  commentWrites(): RecordedRequest[];
  /** Registers a commit with its dates (ISO 8601) for `GET …/git/commits/{sha}`. */
  commit(owner: string, repo: string, sha: string, dates: CommitDates): void;
  /** That SHA answers 404: the repository does not hold it. */
  missingCommit(owner: string, repo: string, sha: string): void;
  /** Client requests that read a git commit (`GET …/git/commits/{sha}`). */
  commitReads(): RecordedRequest[];
  /** The repository's deployments, oldest first, each with its statuses oldest first. */
  deployments(owner: string, repo: string): SimDeployment[];
  /** Forgets deployments, commits, requests, violations, faults, hooks and rate-limit counters. */
  reset(): void;
  /** Stops the server, ending hanging and delayed requests; safe to call more than once. */
  close(): Promise<void>;
}

/** GitHub's answer when a request body is not JSON. */
const PROBLEMS_PARSING_JSON = { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/rest', status: '400' };
/** GitHub's 401 for a missing, unknown or expired credential. */
const BAD_CREDENTIALS: Reply = {
  status: 401,
  body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' },
};
/** GitHub's content-generating methods: what its secondary limits count. */
const CONTENT_GENERATING = ['POST', 'PATCH', 'PUT', 'DELETE'];
/** Where GitHub's refusals of a commit read point. */
const COMMIT_DOCS = 'https://docs.github.com/rest/git/commits#get-a-commit-object';
/** The primary budget when `requestsPerHour` is not set: GitHub's for a token. */
const DEFAULT_REQUESTS_PER_HOUR = 5000;

/** GitHub's side of the simulator: the adapter that SimServer's request pipeline calls. */
class Simulator extends SimulatorBase<Reply, RecordedRequest> implements GitHubSimulator, SimAdapter<Reply, RecordedRequest> {
  url = '';
  /** Scheme, host and port: `url` without the path prefix. */
  origin = '';
  readonly violations: Violation[] = [];
  readonly faults: FaultBuilders;
  readonly app: SimApp | undefined;
  readonly server = new SimServer<Reply, RecordedRequest>(this);
  /** What an injected error or afterWork fault answers when it gives no body. */
  readonly faultBody = { message: 'Server Error' };
  readonly latencyMs: number | undefined;
  readonly prefix: string;
  private readonly state = new SimState(() => this.url);
  private readonly spec: SpecValidators;
  private readonly primary: PrimaryLimit;
  readonly points: PointBudget;
  private readonly window: WriteWindows | undefined;
  private readonly perAccount: WriteWindows;
  /** Whether `perAccount` refuses writes now (`secondaryLimits`, switched by `enforceSecondaryLimits`). */
  private enforcing: boolean;
  private readonly creator: SimUser;
  private readonly conversation = new CommentSim(
    () => this.url,
    (v) => this.violations.push({ method: '', path: v.endpoint, ...v, endpoint: undefined }),
  );

  protected readonly commitBook: CommitBook;
  private readonly commits: CommitSim;

  constructor(private readonly options: GitHubSimulatorOptions) {
    super();
    this.commitBook = new CommitBook(options.defaultCommitDate, Date.now(), COMMIT_PATH);
    this.commits = new CommitSim(
      () => this.url,
      (v) => this.violations.push({ method: 'GET', path: v.endpoint, ...v, endpoint: undefined }),
      this.commitBook,
    );
    this.spec = compileSpec(loadFixture(options.fixturePath));
    this.faults = faultBuilders(this.spec.fixture);
    this.app = options.app === undefined ? undefined : new SimApp(options.app);
    this.primary = new PrimaryLimit(options.requestsPerHour ?? DEFAULT_REQUESTS_PER_HOUR);
    this.points = new PointBudget(options.graphqlPointsPerHour ?? DEFAULT_REQUESTS_PER_HOUR);
    this.window = options.writesPerMinute === undefined ? undefined : new WriteWindows([{ count: options.writesPerMinute, ms: 60_000 }]);
    const secondary = typeof options.secondaryLimits === 'object' ? options.secondaryLimits : {};
    this.perAccount = new WriteWindows(secondary.windows ?? GITHUB_SECONDARY_WINDOWS, secondary.scale);
    this.enforcing = Boolean(options.secondaryLimits);
    this.prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
    this.latencyMs = options.latencyMs;
    this.creator = {
      login: options.login ?? 'deployment-bridge[bot]',
      id: 41898282,
      node_id: 'MDM6Qm90NDE4OTgyODI=',
      type: 'Bot',
      site_admin: false,
    };
  }

  writes(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.didWork && (r.method === 'POST' || r.method === 'DELETE'));
  }

  graphqlQueries(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.method === 'POST' && r.path === '/graphql');
  }

  secondaryRefusals(): number {
    return (this.window?.refused ?? 0) + this.perAccount.refused;
  }

  enforceSecondaryLimits(on: boolean): void {
    this.enforcing = on;
    this.perAccount.reset();
  }

  pullRequest(owner: string, repo: string, n: number, pr: Partial<SimPullRequest> = {}): void {
    this.conversation.pullRequest(owner, repo, n, pr);
  }

  comments(owner: string, repo: string, n: number): SimComment[] {
    return this.conversation.of(owner, repo, n);
  }

  commentWrites(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.didWork && /\/issues\/(?:\d+\/)?comments/.test(r.path));
  }

  deployments(owner: string, repo: string): SimDeployment[] {
    return this.state.snapshot(owner, repo);
  }

  reset(): void {
    this.server.reset();
    this.violations.length = 0;
    this.state.clear();
    this.conversation.clear();
    this.commitBook.clear();
    this.primary.reset();
    this.points.reset();
    this.window?.reset();
    this.perAccount.reset();
  }

  apiPath(pathname: string): string | undefined {
    if (this.prefix.endsWith('/api/v3') && pathname === `${this.prefix.slice(0, -3)}/graphql`) return '/graphql';
    return pathBelow(this.prefix, pathname);
  }

  outside(): Reply {
    return notFound();
  }

  tooLarge(): Reply {
    return { status: 413, body: { message: 'Payload Too Large' } };
  }

  notJson(rec: RecordedRequest, raw: string): Reply {
    this.violations.push({ method: rec.method, path: rec.path, kind: 'json', errors: ['body is not JSON'], data: raw });
    return { status: 400, body: PROBLEMS_PARSING_JSON };
  }

  /** A bug in the simulator answers 500 and is recorded, rather than crashing the test process. */
  crashed(rec: RecordedRequest, message: string): Reply {
    this.violations.push({ method: rec.method, path: rec.path, kind: 'response', errors: [message], data: rec.body });
    return { status: 500, body: { message } };
  }

  /** The simulator's own answers must match GitHub's response schemas too (where the spec has one). */
  answered(rec: RecordedRequest, reply: Reply): void {
    if (reply.endpoint === undefined) return;
    const errors = this.spec.response(reply.endpoint, reply.status, reply.body);
    if (errors.length > 0)
      this.violations.push({ method: rec.method, path: rec.path, endpoint: reply.endpoint, kind: 'response', errors, data: reply.body });
  }

  /** What GitHub puts on every answer: its API version and media type, a request id, the primary rate limit. */
  headers(): Record<string, string> {
    return {
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': `SIM:${this.server.requests.length}`,
      ...this.primary.headers(),
    };
  }

  /** Auth, existence, rate limits, then the endpoint itself. */
  answer(req: IncomingMessage, rec: RecordedRequest): Reply {
    const exists = (owner: string, repo: string) => repoExists(this.options, owner, repo);
    const credential = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const presented =
      this.app?.identify(credential) ??
      (credential === undefined ? { kind: 'none' as const } : { kind: 'token' as const, token: credential });
    rec.credential = presented.kind;
    if (presented.kind === 'installation') rec.installationId = presented.installation.id;
    if (presented.kind === 'token') rec.token = presented.token;
    const tokenOk = presented.kind === 'token' && (this.options.tokens === undefined || this.options.tokens.includes(presented.token));
    const installationOk = presented.kind === 'installation' && !presented.expired;
    // /rate_limit costs nothing; without credentials it answers the anonymous budget, with bad ones 401.
    if (rec.method === 'GET' && rec.path === '/rate_limit')
      return presented.kind === 'none' || tokenOk || installationOk ? { status: 200, body: this.primary.body() } : BAD_CREDENTIALS;
    const appReply = this.app?.answer(rec.method, rec.path, presented, rec.body, exists);
    if (appReply !== undefined) return appReply;
    if (!tokenOk && !installationOk) return BAD_CREDENTIALS;
    // GraphQL spends its own point budget, not the REST requests of the hour.
    if (rec.method === 'POST' && rec.path === '/graphql')
      return answerGraphQL(
        {
          account: presented.kind === 'installation' ? `installation ${presented.installation.id}` : `token ${credential ?? ''}`,
          canSee: (owner, repo) =>
            exists(owner, repo) && (presented.kind !== 'installation' || this.app!.canAccess(presented.installation, owner, repo)),
          deployments: (owner, repo) => this.state.snapshot(owner, repo),
          points: this.points,
          violation: (errors, data) => this.violations.push({ method: rec.method, path: rec.path, kind: 'body', errors, data }),
        },
        rec.body,
      );
    if (!this.primary.take()) return { ...this.faults.primaryRateLimit(0), headers: this.primary.headers() };
    const commenter =
      presented.kind === 'installation'
        ? {
            login: `${this.options.app?.slug ?? 'bridge'}[bot]`,
            id: 9_100_000 + (this.options.app?.id ?? 0),
            type: 'Bot' as const,
            app: { id: this.options.app?.id ?? 0, slug: this.options.app?.slug ?? 'bridge' },
          }
        : { login: this.creator.login, id: this.creator.id, type: this.creator.type === 'Bot' ? ('Bot' as const) : ('User' as const) };
    const talk = (owner: string, repo: string) =>
      exists(owner, repo) && (presented.kind !== 'installation' || this.app!.canAccess(presented.installation, owner, repo));
    const repoOf = /^\/repos\/([^/]+)\/([^/]+)\//.exec(rec.path);
    if (repoOf === null || talk(decodeURIComponent(repoOf[1]!), decodeURIComponent(repoOf[2]!))) {
      const selfUrl = `${this.origin}${new URL(req.url ?? '/', 'http://sim.invalid').pathname}`;
      const writesComment = rec.method !== 'GET' && /\/issues\/(?:\d+\/)?comments/.test(rec.path);
      if (writesComment && this.window !== undefined) {
        const slot = this.window.take();
        if (!slot.ok) return this.faults.secondaryRateLimit(slot.retryAfterSeconds);
      }
      if (rec.method === 'GET' && rec.path === '/user' && presented.kind === 'installation')
        return { status: 403, body: { message: 'Resource not accessible by integration', status: '403' } };
      if (this.commitBook.isRead(rec) && presented.kind === 'installation' && !SimApp.permits(presented.permissions, 'contents', 'read'))
        return { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: COMMIT_DOCS, status: '403' } };
      const read = this.commits.answer(rec.method, rec.path, rec.query);
      if (read !== undefined) return read;
      const spoken = this.conversation.answer(rec.method, rec.path, rec.query, rec.body ?? {}, commenter, selfUrl);
      if (spoken !== undefined) return spoken;
    }
    const route = matchRoute(rec.method, rec.path);
    if (route === undefined || !exists(route.owner, route.repo)) return notFound();
    if (presented.kind === 'installation' && !this.app!.canAccess(presented.installation, route.owner, route.repo)) return notFound();
    if (CONTENT_GENERATING.includes(rec.method)) {
      const own = presented.kind === 'installation' ? `installation ${presented.installation.id}` : (credential ?? '');
      const shared = typeof this.options.secondaryLimits === 'object' ? this.options.secondaryLimits.identities?.[own] : undefined;
      const account = shared === undefined ? `account ${own}` : `identity ${shared}`;
      // writesPerMinute counts every account's writes together; secondaryLimits each account's own.
      for (const [limit, key] of [
        [this.window, ''],
        [this.enforcing ? this.perAccount : undefined, account],
      ] as const) {
        const slot = limit?.take(key) ?? { ok: true };
        if (!slot.ok) return this.faults.secondaryRateLimit(slot.retryAfterSeconds);
      }
    }
    return route.handler(
      {
        state: this.state,
        spec: this.spec,
        facts: this.options,
        creator: this.creator,
        selfUrl: `${this.origin}${new URL(req.url ?? '/', 'http://sim.invalid').pathname}`,
        violation: (v) => this.violations.push({ method: rec.method, path: rec.path, ...v }),
      },
      { owner: route.owner, repo: route.repo, id: route.id, query: rec.query, body: rec.body ?? {} },
    );
  }
}

/** Starts a simulator on 127.0.0.1 with an ephemeral port. */
export async function startGitHubSimulator(options: GitHubSimulatorOptions = {}): Promise<GitHubSimulator> {
  const sim = new Simulator(options);
  const port = await sim.server.listen();
  sim.origin = `http://127.0.0.1:${port}`;
  sim.url = `${sim.origin}${sim.prefix}`;
  return sim;
}
