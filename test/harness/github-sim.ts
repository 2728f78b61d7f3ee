/**
 * A GitHub REST API simulator for the deployment endpoints: a real HTTP server on loopback that
 * speaks GitHub's wire format (so octokit talks to it unchanged), validates every request against
 * the official OpenAPI schema, applies GitHub's side effects and rate limits, and can inject faults.
 * Used by tests, benchmarks and the demo.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimApp, type SimAppOptions } from './github-sim/app.js';
import { FaultQueue, faultBuilders, type Fault, type FaultBuilders, type FaultKind } from './github-sim/faults.js';
import { HookList, type RequestHook } from './github-sim/hooks.js';
import { PrimaryLimit, WriteWindow } from './github-sim/limits.js';
import { matchRoute, notFound, type RepoFacts, type Reply, type Violation } from './github-sim/routes.js';
import { compileSpec, loadFixture, type SpecValidators } from './github-sim/spec.js';
import { SimState, repoKey } from './github-sim/state.js';
import type { SimDeployment, SimUser } from './github-sim/wire-types.js';
import { PARSE_ERROR, parseJson, readBody } from './github-sim/wire.js';

export { faults, type Fault, type FaultKind, type FaultBuilders } from './github-sim/faults.js';
export type { Violation, StatusCheck } from './github-sim/routes.js';
export type { Deployment, DeploymentStatus, SimDeployment, SimStatus } from './github-sim/wire-types.js';
export type { SimAppOptions, SimInstallation } from './github-sim/app.js';
export type { RequestHook, HookVerdict } from './github-sim/hooks.js';

export interface GitHubSimulatorOptions extends RepoFacts {
  /** Accepted tokens (`Authorization: token X` or `Bearer X`); when omitted any token is accepted, none still gets 401. */
  tokens?: string[];
  /** "owner/repo" names that exist; when set, others answer 404. */
  repos?: string[];
  /** Serve under a path prefix, e.g. "/api/v3" like GitHub Enterprise Server. */
  pathPrefix?: string;
  /** Secondary rate limit: at most this many POST/DELETE per sliding minute, then 403 + retry-after. */
  writesPerMinute?: number;
  /** Delay every answer by this many milliseconds. */
  latencyMs?: number;
  /** Primary rate limit: requests per hour (default 5000), then 403 with x-ratelimit-remaining 0. */
  requestsPerHour?: number;
  /** Login recorded as the creator of deployments and statuses. */
  login?: string;
  /** Path of github-openapi-deployments.json; default <repo>/test/fixtures/. */
  fixturePath?: string;
  /** A GitHub App: JWTs verified with its public key, installations, installation tokens. */
  app?: SimAppOptions;
}

/** One request as the simulator saw it; `path` is without the prefix and query. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The status answered; undefined while hanging or when the socket was reset. */
  status?: number;
  /** Epoch milliseconds when the request arrived. */
  time: number;
  /** True when the request changed state (even if the answer was then replaced by an afterWork fault). */
  didWork: boolean;
  /** The fault applied to this request, if any. */
  fault?: FaultKind;
  /** How it authenticated: a token, the App's JWT, an installation token (with its installation), or nothing. */
  credential?: 'none' | 'token' | 'jwt' | 'installation';
  installationId?: number;
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
  /** Arms a fault for the next matching request(s). */
  inject(fault: Fault): void;
  /** Arms a hook run when the next matching request(s) arrive or are applied (e.g. to kill the client there). */
  hook(hook: RequestHook): void;
  /** Client POST/DELETE requests that changed state (GitHub's own auto_inactive statuses are not requests). */
  writes(): RecordedRequest[];
  /** The repository's deployments, oldest first, each with its statuses oldest first. */
  deployments(owner: string, repo: string): SimDeployment[];
  /** Forgets deployments, requests, violations, faults, hooks and rate-limit counters. */
  reset(): void;
  /** Stops the server, ending hanging and delayed requests; safe to call more than once. */
  close(): Promise<void>;
}

class Simulator implements GitHubSimulator {
  url = '';
  readonly requests: RecordedRequest[] = [];
  readonly violations: Violation[] = [];
  readonly faults: FaultBuilders;
  readonly app: SimApp | undefined;
  private readonly queue = new FaultQueue();
  private readonly hooks = new HookList();
  private readonly state = new SimState(() => this.url);
  private readonly spec: SpecValidators;
  private readonly primary: PrimaryLimit;
  private readonly window: WriteWindow | undefined;
  private readonly prefix: string;
  private readonly creator: SimUser;
  private readonly held = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closing: Promise<void> | undefined;
  readonly server: Server;

  constructor(private readonly options: GitHubSimulatorOptions) {
    this.spec = compileSpec(loadFixture(options.fixturePath));
    this.faults = faultBuilders(this.spec.fixture);
    this.app = options.app === undefined ? undefined : new SimApp(options.app);
    this.primary = new PrimaryLimit(options.requestsPerHour ?? 5000);
    this.window = options.writesPerMinute === undefined ? undefined : new WriteWindow(options.writesPerMinute);
    this.prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
    this.creator = {
      login: options.login ?? 'deployment-bridge[bot]',
      id: 41898282,
      node_id: 'MDM6Qm90NDE4OTgyODI=',
      type: 'Bot',
      site_admin: false,
    };
    this.server = createServer((req, res) => void this.onRequest(req, res).catch(() => res.destroy()));
  }

  inject(fault: Fault): void {
    this.queue.add(fault);
  }

  hook(hook: RequestHook): void {
    this.hooks.add(hook);
  }

  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.didWork && (r.method === 'POST' || r.method === 'DELETE'));
  }

  deployments(owner: string, repo: string): SimDeployment[] {
    return this.state.snapshot(owner, repo);
  }

  reset(): void {
    this.requests.length = 0;
    this.violations.length = 0;
    this.queue.clear();
    this.hooks.clear();
    this.state.clear();
    this.primary.reset();
    this.window?.reset();
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve, reject) => {
      for (const t of this.timers) clearTimeout(t);
      for (const res of this.held) res.destroy();
      this.server.close((err) => (err ? reject(err) : resolve()));
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://sim.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const inPrefix = this.prefix === '' || u.pathname === this.prefix || u.pathname.startsWith(`${this.prefix}/`);
    const path = inPrefix ? u.pathname.slice(this.prefix.length).replace(/(.)\/$/, '$1') || '/' : u.pathname;
    const raw = await readBody(req);
    const rec: RecordedRequest = {
      method,
      path,
      query: Object.fromEntries(u.searchParams),
      body: undefined,
      time: Date.now(),
      didWork: false,
    };
    this.requests.push(rec);
    let reply: Reply;
    if (raw === undefined) {
      reply = { status: 413, body: { message: 'Payload Too Large' } };
    } else if (raw.length > 0 && (rec.body = parseJson(raw)) === PARSE_ERROR) {
      rec.body = raw;
      this.violations.push({ method, path, kind: 'json', errors: ['body is not JSON'], data: raw });
      reply = { status: 400, body: { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/rest', status: '400' } };
    } else {
      const before = this.hooks.run('before', rec, [path, u.pathname]);
      if (before !== undefined && (await before) === 'drop') return void req.socket.destroy();
      const armed = this.queue.take(method, [path, u.pathname]);
      const fault = armed?.kind;
      rec.fault = fault;
      if (fault !== undefined && 'reset' in fault) return void req.socket.destroy();
      if (fault !== undefined && 'hang' in fault) {
        this.held.add(res);
        return void res.once('close', () => this.held.delete(res));
      }
      if (fault !== undefined && 'status' in fault)
        reply = { status: fault.status, headers: fault.headers, body: fault.body ?? { message: 'Server Error' } };
      else reply = inPrefix ? this.guarded(req, rec, u) : notFound();
      if (armed !== undefined && fault !== undefined && 'afterWork' in fault) {
        if (reply.didWork === true)
          reply = { status: fault.afterWork, headers: fault.headers, body: fault.body ?? { message: 'Server Error' }, didWork: true };
        else {
          this.queue.giveBack(armed);
          rec.fault = undefined;
        }
      }
    }
    rec.didWork = reply.didWork === true;
    rec.status = reply.status;
    this.checkResponse(rec, reply);
    const after = this.hooks.run('after', rec, [path, u.pathname]);
    if (after !== undefined && (await after) === 'drop') {
      rec.status = undefined;
      return void req.socket.destroy();
    }
    this.send(res, reply);
  }

  /** A bug in the simulator answers 500 and is recorded, rather than crashing the test process. */
  private guarded(req: IncomingMessage, rec: RecordedRequest, u: URL): Reply {
    try {
      return this.handle(req, rec, u);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.violations.push({
        method: rec.method,
        path: rec.path,
        kind: 'response',
        errors: [`simulator error: ${message}`],
        data: rec.body,
      });
      return { status: 500, body: { message: `simulator error: ${message}` } };
    }
  }

  /** Auth, existence, rate limits, then the endpoint itself. */
  private handle(req: IncomingMessage, rec: RecordedRequest, u: URL): Reply {
    const allowed = this.options.repos?.map((r) => r.toLowerCase());
    const exists = (owner: string, repo: string) => allowed === undefined || allowed.includes(repoKey(owner, repo));
    const credential = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const presented =
      this.app?.identify(credential) ??
      (credential === undefined ? { kind: 'none' as const } : { kind: 'token' as const, token: credential });
    rec.credential = presented.kind;
    if (presented.kind === 'installation') rec.installationId = presented.installation.id;
    const badCredentials: Reply = {
      status: 401,
      body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' },
    };
    const tokenOk = presented.kind === 'token' && (this.options.tokens === undefined || this.options.tokens.includes(presented.token));
    const installationOk = presented.kind === 'installation' && !presented.expired;
    // /rate_limit costs nothing; without credentials it answers the anonymous budget, with bad ones 401.
    if (rec.method === 'GET' && rec.path === '/rate_limit')
      return presented.kind === 'none' || tokenOk || installationOk ? { status: 200, body: this.primary.body() } : badCredentials;
    const appReply = this.app?.answer(rec.method, rec.path, presented, rec.body, exists);
    if (appReply !== undefined) return appReply;
    if (!tokenOk && !installationOk) return badCredentials;
    if (!this.primary.take()) return { ...this.faults.primaryRateLimit(0), headers: this.primary.headers() };
    const route = matchRoute(rec.method, rec.path);
    if (route === undefined || !exists(route.owner, route.repo)) return notFound();
    if (presented.kind === 'installation' && !this.app!.canAccess(presented.installation, route.owner, route.repo)) return notFound();
    if (this.window !== undefined && (rec.method === 'POST' || rec.method === 'DELETE')) {
      const slot = this.window.take();
      if (!slot.ok) return this.faults.secondaryRateLimit(slot.retryAfterSeconds);
    }
    return route.handler(
      {
        state: this.state,
        spec: this.spec,
        facts: this.options,
        creator: this.creator,
        selfUrl: `${this.url.slice(0, this.url.length - this.prefix.length)}${u.pathname}`,
        violation: (v) => this.violations.push({ method: rec.method, path: rec.path, ...v }),
      },
      { owner: route.owner, repo: route.repo, id: route.id, query: rec.query, body: rec.body ?? {} },
    );
  }

  /** The simulator's own answers must match GitHub's response schemas too (where the spec has one). */
  private checkResponse(rec: RecordedRequest, reply: Reply): void {
    if (reply.endpoint === undefined || rec.fault !== undefined) return;
    const errors = this.spec.response(reply.endpoint, reply.status, reply.body);
    if (errors.length > 0)
      this.violations.push({ method: rec.method, path: rec.path, endpoint: reply.endpoint, kind: 'response', errors, data: reply.body });
  }

  private send(res: ServerResponse, reply: Reply): void {
    const write = (): void => {
      const headers: Record<string, string> = {
        'x-github-api-version-selected': '2022-11-28',
        'x-github-media-type': 'github.v3; format=json',
        'x-github-request-id': `SIM:${this.requests.length}`,
        ...this.primary.headers(),
        ...(reply.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
        ...reply.headers,
      };
      res.writeHead(reply.status, headers).end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
    };
    const delay = this.options.latencyMs ?? 0;
    if (delay <= 0) {
      write();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      write();
    }, delay);
    this.timers.add(timer);
  }
}

/** Starts a simulator on 127.0.0.1 with an ephemeral port. */
export async function startGitHubSimulator(options: GitHubSimulatorOptions = {}): Promise<GitHubSimulator> {
  const sim = new Simulator(options);
  await new Promise<void>((resolve, reject) => {
    sim.server.once('error', reject);
    sim.server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = sim.server.address() as AddressInfo;
  sim.url = `http://127.0.0.1:${port}${options.pathPrefix?.replace(/\/+$/, '') ?? ''}`;
  return sim;
}
