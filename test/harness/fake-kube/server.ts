/** The fake Kubernetes API server: real HTTP on loopback, real REST paths, real Status bodies. */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { isAllowed, verbOf, type AllowRule } from './rbac.js';
import { getObject, listObjects, parsePath, resolveType, unknownResource, type Reply } from './routes.js';
import { badRequest, faultStatus, forbidden, methodNotAllowed, unauthorized } from './status.js';
import { ObjectStore, type KubeObject, type KubeObjectInput } from './store.js';
import { WatchHub } from './watch.js';

export interface FakeKubeOptions {
  /** Bearer token every request must carry; anything else is answered 401. */
  token?: string;
  /** RBAC allow-list; when set, anything it does not allow is answered 403. */
  allow?: AllowRule[];
  /** The user named in 403 messages. */
  user?: string;
  /** Serve HTTPS with this certificate and key (PEM) instead of plain HTTP. */
  tls?: { cert: string; key: string };
}

/** One request as the server saw it. status is 0 when a fault left it unanswered (hang, reset). */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  fault?: 'status' | 'hang' | 'reset';
  /** The Authorization header it carried, if any (what credentials reached this server). */
  authorization?: string;
}

/** A fault to inject into matching requests, before authentication. */
export interface FaultSpec {
  /** HTTP method to match (any when unset). */
  method?: string;
  /** A string matches the path exactly; a RegExp is tested against path plus query string. */
  path?: RegExp | string;
  /** How many matching requests it hits (default 1; Infinity for an outage). */
  times?: number;
  /** Answer a Status with this code (500, 503, 429, ...). */
  status?: number;
  /** Never answer; the socket stays open until the client gives up or the server stops. */
  hang?: boolean;
  /** Destroy the connection without an answer (the client sees ECONNRESET / socket hang up). */
  reset?: boolean;
}

/** A registered fault; `hits` counts the requests it took. */
export interface Fault {
  readonly spec: FaultSpec;
  remaining: number;
  hits: number;
}

const DEFAULT_TOKEN = 'fake-kube-token';
const DEFAULT_USER = 'system:serviceaccount:flux-system:github-deployment-bridge';

export class FakeKube {
  /** The bearer token it accepts; may be changed (a rotation). */
  token: string;
  readonly user: string;
  /** RBAC allow-list; may be changed between requests. */
  allow: AllowRule[] | undefined;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly store = new ObjectStore();
  private readonly watches = new WatchHub(this.store);
  private faults: Fault[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private readonly tls: FakeKubeOptions['tls'];

  constructor(opts: FakeKubeOptions = {}) {
    this.tls = opts.tls;
    this.token = opts.token ?? DEFAULT_TOKEN;
    this.user = opts.user ?? DEFAULT_USER;
    this.allow = opts.allow;
  }

  /** http://127.0.0.1:<port> (https with `tls`); the port stays the same across stop()/start(). */
  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  /** Requests that tried to change something (anything but GET and HEAD). */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
  }

  /** Creates or replaces an object (see ObjectStore.put for metadata handling). */
  put(obj: KubeObjectInput): KubeObject {
    return this.store.put(obj);
  }

  /** Merge-patches .status without touching generation. */
  patchStatus(apiVersion: string, kind: string, namespace: string | undefined, name: string, status: unknown): KubeObject {
    return this.store.patchStatus(apiVersion, kind, namespace, name, status);
  }

  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string): boolean {
    return this.store.delete(apiVersion, kind, namespace, name);
  }

  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(apiVersion, kind, namespace, name);
  }

  /** Watches being served now. */
  get openWatches(): number {
    return this.watches.count;
  }

  /** TCP connections open to this server now (a client's keep-alive pool and its watches). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Cuts every open watch's connection mid-stream (a dropped connection); returns how many. */
  dropWatches(): number {
    return this.watches.drop();
  }

  /** Ends every open watch with an ERROR event carrying 410 Expired; returns how many. */
  expireWatches(): number {
    return this.watches.expire();
  }

  /** Forgets the change history: a watch resuming from an earlier resourceVersion gets 410 Expired. */
  compact(): void {
    this.store.compact();
  }

  /** Forgets all objects, recorded requests and faults. */
  reset(): void {
    this.store.clear();
    this.requests.length = 0;
    this.faults = [];
  }

  /** Registers a fault for the next matching requests. */
  inject(spec: FaultSpec): Fault {
    const fault: Fault = { spec, remaining: spec.times ?? 1, hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  clearFaults(): void {
    this.faults = [];
  }

  /** Listens on 127.0.0.1 (an ephemeral port the first time, the same port afterwards). */
  async start(): Promise<void> {
    if (this.server) return;
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    const server: Server = this.tls ? createTlsServer(this.tls, handler) : createServer(handler);
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops every connection: clients get "connection refused" until start(). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  /** Stops the server for good (same as stop(); named for test teardown). */
  close(): Promise<void> {
    return this.stop();
  }

  private takeFault(method: string, pathname: string, pathAndQuery: string): Fault | undefined {
    const fault = this.faults.find((f) => {
      const { spec } = f;
      if (f.remaining <= 0) return false;
      if (spec.method && spec.method.toUpperCase() !== method) return false;
      if (typeof spec.path === 'string') return spec.path === pathname;
      return spec.path ? spec.path.test(pathAndQuery) : true;
    });
    if (fault) {
      fault.remaining--;
      fault.hits++;
    }
    return fault;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    req.resume(); // drain any body; the fake never reads it
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const rec: RecordedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0 };
    if (req.headers.authorization !== undefined) rec.authorization = req.headers.authorization;
    this.requests.push(rec);
    const fault = this.takeFault(method, url.pathname, url.pathname + url.search);
    if (fault?.spec.hang) {
      rec.fault = 'hang';
      return;
    }
    if (fault?.spec.reset) {
      rec.fault = 'reset';
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = {
      'Audit-Id': randomUUID(),
      'Cache-Control': 'no-cache, private',
      'Content-Type': 'application/json',
    };
    let reply: Reply | 'streaming';
    if (fault) {
      rec.fault = 'status';
      reply = { status: fault.spec.status ?? 500, body: faultStatus(fault.spec.status ?? 500) };
    } else {
      reply = this.answer(method, url, req.headers.authorization, res, headers);
    }
    if (reply === 'streaming') {
      rec.status = 200;
      return;
    }
    rec.status = reply.status;
    if (reply.status === 429) headers['Retry-After'] = '1';
    res.writeHead(reply.status, headers);
    res.end(JSON.stringify(reply.body));
  }

  private answer(
    method: string,
    url: URL,
    authorization: string | undefined,
    res: ServerResponse,
    headers: Record<string, string>,
  ): Reply | 'streaming' {
    if (authorization !== `Bearer ${this.token}`) return { status: 401, body: unauthorized() };
    const route = parsePath(url.pathname);
    if (!route) return unknownResource();
    const watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    const verb = verbOf(method, route.name !== undefined, watch);
    const target = { verb, group: route.group, resource: route.plural, namespace: route.namespace };
    if (!isAllowed(this.allow, target)) {
      return {
        status: 403,
        body: forbidden({ user: this.user, verb, group: route.group, plural: route.plural, name: route.name, namespace: route.namespace }),
      };
    }
    if (method !== 'GET' && method !== 'HEAD') return { status: 405, body: methodNotAllowed() };
    const type = resolveType(route);
    if (!type) return unknownResource();
    if (watch && route.name !== undefined) {
      return { status: 400, body: badRequest('fake-kube serves watches of collections only (use fieldSelector=metadata.name=…)') };
    }
    if (watch) {
      const started = this.watches.serve(res, type, route, url.searchParams, headers);
      return 'body' in started ? started : 'streaming';
    }
    return route.name !== undefined ? getObject(this.store, type, route) : listObjects(this.store, type, route, url.searchParams);
  }
}

/** Starts a fake API server on 127.0.0.1 with an ephemeral port. */
export async function startFakeKube(opts: FakeKubeOptions = {}): Promise<FakeKube> {
  const fake = new FakeKube(opts);
  await fake.start();
  return fake;
}
