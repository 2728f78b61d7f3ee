/**
 * The HTTP plumbing of a forge simulator, apart from what the forge says: a loopback server that
 * records every request, runs request hooks, applies injected faults (error answers, answers lost
 * after the work, hangs, resets, redirects), delays answers, and closes cleanly with requests still held. The
 * forge itself is an adapter: where its API lives, how it answers, how it words its refusals, what
 * it adds to every answer. The GitHub, Forgejo and GitLab simulators are its adapters.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultQueue, type AfterWorkFault, type ErrorFault, type Fault, type FaultKind } from './github-sim/faults.js';
import { HookList, type RequestHook } from './github-sim/hooks.js';
import { PARSE_ERROR, parseJson, readBody } from './github-sim/wire.js';
import type { CommitBook, CommitDates } from './commit-book.js';

/** One request as a simulator saw it; `path` is the API path (the adapter's), without the query. */
export interface SimRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The status answered; undefined while hanging or when the socket was reset. */
  status?: number;
  /** Epoch milliseconds when the request arrived. */
  time: number;
  /** True when the request changed state (even if an afterWork fault then replaced the answer). */
  didWork: boolean;
  fault?: FaultKind;
}

/** An answer: a string body is sent as text (a proxy's page), anything else as JSON. */
export interface SimReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  didWork?: boolean;
}

/** What a forge adds to the plumbing. */
export interface SimAdapter<R extends SimReply, Rec extends SimRecord> {
  /** The API path of a URL path, or undefined when it is outside the simulated API. */
  apiPath(pathname: string): string | undefined;
  /** The forge's answer to a request inside its API. */
  answer(req: IncomingMessage, rec: Rec): R;
  /** Answers for requests that never reach `answer`. */
  outside(rec: Rec): R;
  tooLarge(rec: Rec): R;
  notJson(rec: Rec, raw: string): R;
  /** `answer` threw: a bug in the simulator, answered (and recorded by the adapter) rather than crashing the tests. */
  crashed(rec: Rec, message: string): R;
  /** Sees every answer of the forge's own (not an injected one) before it is sent. */
  answered?(rec: Rec, reply: R): void;
  /** Headers on every answer, injected ones included (an answer's own headers win); read as the answer is written. */
  headers?(): Record<string, string>;
  /** The body of an injected error or afterWork answer whose fault gives none; none when unset. */
  faultBody?: unknown;
  latencyMs?: number;
}

/**
 * The part of a URL path below `base` (a trailing slash dropped, `/` for the base itself), or undefined
 * when the path is not below it; an empty base holds every path.
 */
export function pathBelow(base: string, pathname: string): string | undefined {
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return undefined;
  return pathname.slice(base.length).replace(/(.)\/$/, '$1') || '/';
}

/**
 * The public face a forge simulator below a web base URL shows its tests (Forgejo, GitLab): where it
 * is, what it saw, what it was armed with. Each adds its forge's own inspection.
 */
export interface ForgeSimulatorFace<Rec extends SimRecord, V> {
  /** The web base URL (what the forge's `…_URL` setting would be), with the sub-path if any. */
  readonly url: string;
  /** The API root below `url`. */
  readonly apiUrl: string;
  readonly requests: readonly Rec[];
  /** Description and rule violations seen in client requests (and in the simulator's own answers). */
  readonly violations: readonly V[];
  /** Arms a fault for the next matching request(s); paths match below the API root or in full. */
  inject(fault: Fault): void;
  /** Arms a hook run when the next matching request(s) arrive or are applied. */
  hook(hook: RequestHook): void;
  /** Requests that changed the forge's state. */
  writes(): Rec[];
  /** Registers a commit of `owner/repo` (GitLab: owner is the group path) with its dates, ISO 8601. */
  commit(owner: string, repo: string, sha: string, dates: CommitDates): void;
  /** That SHA answers the forge's 404: the repository does not hold it. */
  missingCommit(owner: string, repo: string, sha: string): void;
  /** Client requests that read a commit (the forge's commit endpoint), for counting reads. */
  commitReads(): Rec[];
  /** Forgets what the forge stored, requests, violations, faults and hooks. */
  reset(): void;
  /** Stops the server, ending hanging and delayed requests; safe to call more than once. */
  close(): Promise<void>;
}

/** What every simulator's public face takes from its SimServer (requests, faults, hooks, close) and its CommitBook. */
export abstract class SimulatorBase<R extends SimReply, Rec extends SimRecord> {
  abstract readonly server: SimServer<R, Rec>;
  protected abstract readonly commitBook: CommitBook;

  commit(owner: string, repo: string, sha: string, dates: CommitDates): void {
    this.commitBook.commit(owner, repo, sha, dates);
  }

  missingCommit(owner: string, repo: string, sha: string): void {
    this.commitBook.missingCommit(owner, repo, sha);
  }

  commitReads(): Rec[] {
    return this.server.requests.filter((r) => this.commitBook.isRead(r));
  }

  get requests(): readonly Rec[] {
    return this.server.requests;
  }

  inject(fault: Fault): void {
    this.server.faults.add(fault);
  }

  hook(hook: RequestHook): void {
    this.server.hooks.add(hook);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

/** The server itself: one adapter's forge behind the shared request pipeline. */
export class SimServer<R extends SimReply, Rec extends SimRecord> {
  readonly requests: Rec[] = [];
  readonly faults = new FaultQueue();
  readonly hooks = new HookList();
  private readonly server: Server;
  private readonly held = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closing: Promise<void> | undefined;

  constructor(private readonly adapter: SimAdapter<R, Rec>) {
    this.server = createServer((req, res) => void this.onRequest(req, res).catch(() => res.destroy()));
  }

  /** Listens on `host` (a loopback address, 127.0.0.1 unless told) with an ephemeral port; returns the port. */
  async listen(host = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** Forgets requests, faults and hooks. */
  reset(): void {
    this.requests.length = 0;
    this.faults.clear();
    this.hooks.clear();
  }

  /** Stops the server, ending hanging and delayed requests; safe to call more than once. */
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
    const inApi = this.adapter.apiPath(u.pathname);
    const path = inApi ?? u.pathname;
    const raw = await readBody(req);
    const rec = {
      method,
      path,
      query: Object.fromEntries(u.searchParams),
      body: undefined,
      time: Date.now(),
      didWork: false,
    } as SimRecord as Rec;
    this.requests.push(rec);
    const paths = [path, u.pathname];
    let reply: R;
    if (raw === undefined) reply = this.adapter.tooLarge(rec);
    else if (raw.length > 0 && (rec.body = parseJson(raw)) === PARSE_ERROR) {
      rec.body = raw;
      reply = this.adapter.notJson(rec, raw);
    } else {
      const before = this.hooks.run('before', rec, paths);
      if (before !== undefined && (await before) === 'drop') return void req.socket.destroy();
      const armed = this.faults.take(method, paths);
      const fault = armed?.kind;
      rec.fault = fault;
      if (fault !== undefined && 'reset' in fault) return void req.socket.destroy();
      if (fault !== undefined && 'hang' in fault) {
        this.held.add(res);
        return void res.once('close', () => this.held.delete(res));
      }
      if (fault !== undefined && 'status' in fault) reply = this.injected(fault.status, fault);
      else if (fault !== undefined && 'redirect' in fault)
        reply = this.injected(fault.redirect, { status: fault.redirect, headers: { location: `${fault.to}${req.url ?? '/'}` }, body: '' });
      else reply = inApi === undefined ? this.adapter.outside(rec) : this.guarded(req, rec);
      if (armed !== undefined && fault !== undefined && 'afterWork' in fault) {
        if (reply.didWork === true) reply = { ...this.injected(fault.afterWork, fault), didWork: true };
        else {
          this.faults.giveBack(armed);
          rec.fault = undefined;
        }
      }
    }
    rec.didWork = reply.didWork === true;
    rec.status = reply.status;
    if (rec.fault === undefined) this.adapter.answered?.(rec, reply);
    const after = this.hooks.run('after', rec, paths);
    if (after !== undefined && (await after) === 'drop') {
      rec.status = undefined;
      return void req.socket.destroy();
    }
    this.send(res, reply);
  }

  /** The answer an error or afterWork fault puts in place of the forge's. */
  private injected(status: number, fault: ErrorFault | AfterWorkFault): R {
    return { status, headers: fault.headers, body: fault.body ?? this.adapter.faultBody } as R;
  }

  private guarded(req: IncomingMessage, rec: Rec): R {
    try {
      return this.adapter.answer(req, rec);
    } catch (err) {
      return this.adapter.crashed(rec, `simulator error: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private send(res: ServerResponse, reply: SimReply): void {
    const write = (): void => {
      const text = typeof reply.body === 'string';
      const type = text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
      const headers = { ...this.adapter.headers?.(), ...(reply.body === undefined ? {} : { 'content-type': type }), ...reply.headers };
      res.writeHead(reply.status, headers).end(reply.body === undefined || text ? reply.body : JSON.stringify(reply.body));
    };
    const delay = this.adapter.latencyMs ?? 0;
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
