/**
 * A Forgejo (and Gitea) simulator for the commit-status API: a real HTTP server on loopback that
 * validates every request against Forgejo's swagger (test/fixtures/forgejo-openapi-statuses.json),
 * answers like Forgejo (requests say `state`, answers `status`; ids count up per commit; newest
 * first, `page`/`limit` with `Link` and `X-Total-Count`; 401 for a missing or bad token, reads
 * included; 404 for an unknown repository; 500 for a status on a commit the repository lacks), can
 * sit under a sub-path, and injects faults like the GitHub simulator (429/503 with Retry-After, 5xx,
 * answers lost after the work, hangs, resets). Its repositories are private: an anonymous read is
 * refused (401) except `GET /version`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultQueue, type ErrorFault, type Fault, type FaultKind } from './github-sim/faults.js';
import { HookList, type RequestHook } from './github-sim/hooks.js';
import { PARSE_ERROR, parseJson, readBody } from './github-sim/wire.js';
import {
  matchRepoRoute,
  notFound,
  siteRoute,
  type RepoFacts,
  type Reply,
  type RouteContext,
  type Violation,
} from './forgejo-sim/routes.js';
import { compileSwagger, loadSwagger, type SwaggerValidators } from './forgejo-sim/spec.js';
import { StatusBook, repoKey } from './forgejo-sim/state.js';
import { apiError, type Site, type StoredStatus } from './forgejo-sim/wire.js';

export type { Fault, FaultKind } from './github-sim/faults.js';
export type { RequestHook } from './github-sim/hooks.js';
export type { RepoFacts, Violation } from './forgejo-sim/routes.js';
export type { StoredStatus } from './forgejo-sim/wire.js';

export interface ForgejoSimulatorOptions extends RepoFacts {
  /** Accepted tokens (`Authorization: token X` or `Bearer X`); when omitted any token is accepted, none still gets 401. */
  tokens?: string[];
  /** "owner/repo" names that exist; when set, others answer 404. */
  repos?: string[];
  /** A sub-path install: the web base URL ends in it, the API is below it (e.g. "/forgejo" → "/forgejo/api/v1"). */
  pathPrefix?: string;
  /** Delay every answer by this many milliseconds. */
  latencyMs?: number;
  /** The token's user, and the creator of statuses. */
  login?: string;
  /** What `GET /version` answers. */
  version?: string;
  /** Epoch milliseconds for `created_at` (whole seconds are kept); default Date.now. */
  clock?: () => number;
  /** Path of forgejo-openapi-statuses.json; default <repo>/test/fixtures/. */
  fixturePath?: string;
}

/** One request as the simulator saw it; `path` is below `/api/v1`, without the query. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The status answered; undefined while hanging or when the socket was reset. */
  status?: number;
  time: number;
  /** True when the request stored a status (even if an afterWork fault then replaced the answer). */
  didWork: boolean;
  fault?: FaultKind;
  credential?: 'none' | 'token';
}

export interface ForgejoSimulator {
  /** The web base URL (what `FORGEJO_URL` would be), with the sub-path if any. */
  readonly url: string;
  /** `${url}/api/v1`. */
  readonly apiUrl: string;
  readonly requests: readonly RecordedRequest[];
  /** Swagger and rule violations seen in client requests (and in the simulator's own answers). */
  readonly violations: readonly Violation[];
  /** Arms a fault for the next matching request(s); paths match below `/api/v1` or in full. */
  inject(fault: Fault): void;
  /** Arms a hook run when the next matching request(s) arrive or are applied. */
  hook(hook: RequestHook): void;
  /** POST requests that stored a status. */
  writes(): RecordedRequest[];
  /** A commit's statuses, oldest first. */
  statuses(owner: string, repo: string, sha: string): StoredStatus[];
  /** Forgets statuses, requests, violations, faults and hooks. */
  reset(): void;
  /** Stops the server, ending hanging and delayed requests; safe to call more than once. */
  close(): Promise<void>;
}

/** A 429 (or a proxy's 503) with `Retry-After`: delta seconds, or an HTTP date given as a string. */
export function retryAfterFault(retryAfter: number | string, status: 429 | 503 = 429): ErrorFault {
  return { status, headers: { 'retry-after': String(retryAfter) }, body: status === 429 ? 'Too Many Requests' : 'Service Unavailable' };
}

const API_PATH = '/api/v1';

class Simulator implements ForgejoSimulator {
  url = '';
  apiUrl = '';
  readonly requests: RecordedRequest[] = [];
  readonly violations: Violation[] = [];
  private readonly queue = new FaultQueue();
  private readonly hooks = new HookList();
  private readonly book = new StatusBook();
  private readonly spec: SwaggerValidators;
  private readonly held = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closing: Promise<void> | undefined;
  readonly prefix: string;
  readonly server: Server;

  constructor(private readonly options: ForgejoSimulatorOptions) {
    this.spec = compileSwagger(loadSwagger(options.fixturePath));
    this.prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
    this.server = createServer((req, res) => void this.onRequest(req, res).catch(() => res.destroy()));
  }

  inject(fault: Fault): void {
    this.queue.add(fault);
  }

  hook(hook: RequestHook): void {
    this.hooks.add(hook);
  }

  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.didWork && r.method === 'POST');
  }

  statuses(owner: string, repo: string, sha: string): StoredStatus[] {
    return this.book.all(owner, repo, sha);
  }

  reset(): void {
    this.requests.length = 0;
    this.violations.length = 0;
    this.queue.clear();
    this.hooks.clear();
    this.book.clear();
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

  private get site(): Site {
    return { webUrl: this.url, apiBase: this.apiUrl };
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://sim.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const base = `${this.prefix}${API_PATH}`;
    const inApi = u.pathname === base || u.pathname.startsWith(`${base}/`);
    const path = inApi ? u.pathname.slice(base.length).replace(/(.)\/$/, '$1') || '/' : u.pathname;
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
    const paths = [path, u.pathname];
    let reply: Reply;
    if (raw === undefined) reply = { status: 413, body: apiError(this.site, 'request body too large') };
    else if (raw.length > 0 && (rec.body = parseJson(raw)) === PARSE_ERROR) {
      rec.body = raw;
      this.violations.push({ method, path, kind: 'json', errors: ['body is not JSON'], data: raw });
      reply = { status: 422, body: apiError(this.site, 'body is not JSON') };
    } else {
      const before = this.hooks.run('before', rec, paths);
      if (before !== undefined && (await before) === 'drop') return void req.socket.destroy();
      const armed = this.queue.take(method, paths);
      const fault = armed?.kind;
      rec.fault = fault;
      if (fault !== undefined && 'reset' in fault) return void req.socket.destroy();
      if (fault !== undefined && 'hang' in fault) {
        this.held.add(res);
        return void res.once('close', () => this.held.delete(res));
      }
      if (fault !== undefined && 'status' in fault) reply = { status: fault.status, headers: fault.headers, body: fault.body };
      else reply = inApi ? this.guarded(req, rec) : { status: 404, body: 'Not Found' };
      if (armed !== undefined && fault !== undefined && 'afterWork' in fault) {
        if (reply.didWork === true) reply = { status: fault.afterWork, headers: fault.headers, body: fault.body, didWork: true };
        else {
          this.queue.giveBack(armed);
          rec.fault = undefined;
        }
      }
    }
    rec.didWork = reply.didWork === true;
    rec.status = reply.status;
    if (reply.operation !== undefined && rec.fault === undefined) {
      const errors = this.spec.response(reply.operation, reply.status, reply.body);
      if (errors.length > 0) this.violations.push({ method, path, operation: reply.operation, kind: 'response', errors, data: reply.body });
    }
    const after = this.hooks.run('after', rec, paths);
    if (after !== undefined && (await after) === 'drop') {
      rec.status = undefined;
      return void req.socket.destroy();
    }
    this.send(res, reply);
  }

  /** A bug in the simulator answers 500 and is recorded, rather than crashing the test process. */
  private guarded(req: IncomingMessage, rec: RecordedRequest): Reply {
    try {
      return this.handle(req, rec);
    } catch (err) {
      const message = `simulator error: ${err instanceof Error ? err.message : String(err)}`;
      this.violations.push({ method: rec.method, path: rec.path, kind: 'response', errors: [message], data: rec.body });
      return { status: 500, body: apiError(this.site, message) };
    }
  }

  /** Authentication, then `/version` and `/user`, then the repository's existence, then the endpoint. */
  private handle(req: IncomingMessage, rec: RecordedRequest): Reply {
    const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    rec.credential = token === undefined ? 'none' : 'token';
    const anonymousOk = rec.method === 'GET' && rec.path === '/version';
    if (token === undefined && !anonymousOk) return { status: 401, body: apiError(this.site, 'token is required') };
    if (token !== undefined && this.options.tokens !== undefined && !this.options.tokens.includes(token))
      return { status: 401, body: apiError(this.site, 'invalid username, password or token') };
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
    const site = siteRoute(ctx, rec.method, rec.path);
    if (site !== undefined) return site;
    const route = matchRepoRoute(rec.method, rec.path);
    const allowed = this.options.repos?.map((r) => r.toLowerCase());
    if (route === undefined || (allowed !== undefined && !allowed.includes(repoKey(route.owner, route.repo)))) return notFound(this.site);
    return route.handler(ctx, { owner: route.owner, repo: route.repo, ref: route.ref, query: rec.query, body: rec.body ?? {} });
  }

  private send(res: ServerResponse, reply: Reply): void {
    const write = (): void => {
      const text = typeof reply.body === 'string';
      const headers: Record<string, string> = {
        ...(reply.body === undefined ? {} : { 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json;charset=utf-8' }),
        ...reply.headers,
      };
      const body = reply.body === undefined ? undefined : text ? (reply.body as string) : JSON.stringify(reply.body);
      res.writeHead(reply.status, headers).end(body);
    };
    const delay = this.options.latencyMs ?? 0;
    if (delay <= 0) return write();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      write();
    }, delay);
    this.timers.add(timer);
  }
}

/** Starts a simulator on 127.0.0.1 with an ephemeral port. */
export async function startForgejoSimulator(options: ForgejoSimulatorOptions = {}): Promise<ForgejoSimulator> {
  const sim = new Simulator(options);
  await new Promise<void>((resolve, reject) => {
    sim.server.once('error', reject);
    sim.server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = sim.server.address() as AddressInfo;
  sim.url = `http://127.0.0.1:${port}${sim.prefix}`;
  sim.apiUrl = `${sim.url}${API_PATH}`;
  return sim;
}
