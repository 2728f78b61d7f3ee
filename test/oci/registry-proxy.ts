/**
 * A small HTTP front for the real registry, for what docker-registry cannot show on its own:
 * Bearer token auth with a token endpoint, blob redirects to another host (`localhost`), and
 * a log of every request (to count round-trips by method and check which headers reached which
 * host). Without `bearer` it passes Authorization and the registry's challenges through, so it
 * can count requests in front of an htpasswd or token-auth registry too.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Budget of one upstream request. */
const UPSTREAM_TIMEOUT_MS = 5_000;

export interface ProxyOptions {
  /** Base URL of the real registry, e.g. `http://127.0.0.1:5000`. */
  upstream: string;
  /** Require Bearer tokens from `/token`; `users` makes the token endpoint demand Basic credentials. */
  bearer?: { users?: Record<string, string>; expiresIn?: number };
  /** Answer blob GETs with a 307 to `http://localhost:<port>/storage/…` (another host for the client). */
  redirectBlobs?: boolean;
}

export interface LoggedRequest {
  method: string;
  host: string;
  path: string;
  authorization?: string;
  /** HTTP status sent (0 until the response is finished). */
  status: number;
}

export interface RegistryProxy {
  /** `127.0.0.1:<port>`. */
  host: string;
  /** `localhost:<port>`: where redirected blobs are served. */
  storageHost: string;
  url: string;
  /** Every request, in arrival order. */
  log: LoggedRequest[];
  /** While set, every `/v2/` request is answered with this status (an outage of the registry). */
  failWith: number | undefined;
  close(): Promise<void>;
}

function basicUser(header: string | undefined, users: Record<string, string>): string | undefined {
  const m = /^Basic (.+)$/i.exec(header ?? '');
  if (!m?.[1]) return undefined;
  const [user, ...rest] = Buffer.from(m[1], 'base64').toString('utf8').split(':');
  return user !== undefined && users[user] === rest.join(':') ? user : undefined;
}

/** Starts the proxy on 127.0.0.1:0. */
export async function startRegistryProxy(options: ProxyOptions): Promise<RegistryProxy> {
  const tokens = new Set<string>();
  const log: LoggedRequest[] = [];
  let port = 0;

  async function forward(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers: Record<string, string> = {};
    if (req.headers.accept) headers.accept = req.headers.accept;
    if (req.headers.authorization && !options.bearer) headers.authorization = req.headers.authorization;
    const method = req.method === 'HEAD' ? 'HEAD' : 'GET';
    const up = await fetch(`${options.upstream}${path}`, { method, headers, signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) });
    const body = Buffer.from(await up.arrayBuffer());
    if (method === 'HEAD' && up.headers.get('content-length') !== null) res.setHeader('content-length', up.headers.get('content-length')!);
    for (const name of ['content-type', 'docker-content-digest', 'www-authenticate']) {
      const v = up.headers.get(name);
      if (v !== null) res.setHeader(name, v);
    }
    res.writeHead(up.status).end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    if (url.pathname === '/token') {
      const users = options.bearer?.users;
      if (users !== undefined && basicUser(req.headers.authorization, users) === undefined) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
        return;
      }
      const token = randomBytes(12).toString('hex');
      tokens.add(token);
      const doc = { token, expires_in: options.bearer?.expiresIn ?? 60, issued_at: new Date().toISOString() };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
      return;
    }
    if (url.pathname.startsWith('/storage/')) return forward(`/v2/${url.pathname.slice('/storage/'.length)}`, req, res);
    if (!url.pathname.startsWith('/v2/')) {
      res.writeHead(404).end();
      return;
    }
    if (proxy.failWith !== undefined) {
      res.writeHead(proxy.failWith, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAVAILABLE"}]}');
      return;
    }
    if (options.bearer) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (token === undefined || !tokens.has(token)) {
        const repo = /^\/v2\/(.+)\/(?:manifests|blobs)\//.exec(url.pathname)?.[1] ?? '';
        const challenge = `Bearer realm="http://127.0.0.1:${port}/token",service="test-registry",scope="repository:${repo}:pull"`;
        res
          .writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' })
          .end('{"errors":[{"code":"UNAUTHORIZED"}]}');
        return;
      }
    }
    const blob = /^\/v2\/(.+\/blobs\/sha256:[a-f0-9]{64})$/.exec(url.pathname);
    if (options.redirectBlobs && blob?.[1]) {
      res.writeHead(307, { location: `http://localhost:${port}/storage/${blob[1]}` }).end();
      return;
    }
    await forward(url.pathname, req, res);
  }

  const server = createServer((req, res) => {
    const entry: LoggedRequest = { method: req.method ?? 'GET', host: req.headers.host ?? '', path: req.url ?? '', status: 0 };
    if (req.headers.authorization) entry.authorization = req.headers.authorization;
    log.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
    });
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const proxy: RegistryProxy = {
    host: `127.0.0.1:${port}`,
    storageHost: `localhost:${port}`,
    url: `http://127.0.0.1:${port}`,
    log,
    failWith: undefined,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
  return proxy;
}
