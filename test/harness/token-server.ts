/**
 * A Docker token service for the registry's token auth (distribution 2.8): answers
 * `GET /token?service=…&scope=repository:<name>:pull` with an ES256 JWT whose `x5c` header
 * carries the certificate that the registry trusts through `auth.token.rootcertbundle`.
 * Users in `users` (Basic auth) get what they ask for; anonymous callers get `pull` on public
 * repositories only (an empty grant otherwise, as Docker Hub does); wrong credentials get 401.
 */
import { randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './x509.js';

/** Token lifetime by default, in seconds. */
const DEFAULT_EXPIRES_IN_S = 300;

export interface Access {
  type: string;
  name: string;
  actions: string[];
}

export interface TokenServerOptions {
  service: string;
  issuer: string;
  users?: Record<string, string>;
  /** Repositories anonymous callers may pull; default none. */
  isPublic?: (repository: string) => boolean;
  expiresIn?: number;
}

export interface TokenRequestLog {
  user?: string;
  scopes: string[];
  status: number;
}

export interface TokenServer {
  /** The realm: `http://127.0.0.1:<port>/token`. */
  realm: string;
  /** PEM of the signing certificate: the registry's rootcertbundle. */
  certificatePem: string;
  /** A token granting `access` directly (for pushes in tests). */
  mint(subject: string, access: Access[]): string;
  /** Every token request, in order. */
  log: TokenRequestLog[];
  close(): Promise<void>;
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/** `repository:team/app:pull,push` → Access; undefined when malformed. */
export function parseScope(scope: string): Access | undefined {
  const first = scope.indexOf(':');
  const last = scope.lastIndexOf(':');
  if (first <= 0 || last <= first) return undefined;
  return {
    type: scope.slice(0, first),
    name: scope.slice(first + 1, last),
    actions: scope
      .slice(last + 1)
      .split(',')
      .filter(Boolean),
  };
}

function basicUser(header: string | undefined, users: Record<string, string>): string | null | undefined {
  const m = /^Basic (.+)$/i.exec(header ?? '');
  if (!m?.[1]) return undefined; // anonymous
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  const user = text.slice(0, colon);
  return colon > 0 && users[user] === text.slice(colon + 1) ? user : null; // null: wrong credentials
}

/** Starts the token service on 127.0.0.1:0 with a fresh key and certificate. */
export async function startTokenServer(options: TokenServerOptions): Promise<TokenServer> {
  const cert = selfSignedCertificate(options.issuer);
  const users = options.users ?? {};
  const expiresIn = options.expiresIn ?? DEFAULT_EXPIRES_IN_S;
  const log: TokenRequestLog[] = [];

  function mint(subject: string, access: Access[]): string {
    const header = { typ: 'JWT', alg: 'ES256', x5c: [cert.der.toString('base64')] };
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: options.issuer,
      sub: subject,
      aud: options.service,
      exp: now + expiresIn,
      nbf: now - 10,
      iat: now,
      jti: randomBytes(8).toString('hex'),
      access,
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(input), { key: cert.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${b64url(signature)}`;
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const scopes = url.searchParams
      .getAll('scope')
      .flatMap((s) => s.split(' '))
      .filter(Boolean);
    const entry: TokenRequestLog = { scopes, status: 0 };
    log.push(entry);
    const reply = (status: number, body: unknown): void => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (url.pathname !== '/token') {
      reply(404, { errors: [{ code: 'NOT_FOUND' }] });
      return;
    }
    if (url.searchParams.get('service') !== options.service) {
      reply(400, { errors: [{ code: 'UNSUPPORTED', message: 'unknown service' }] });
      return;
    }
    const user = basicUser(req.headers.authorization, users);
    if (user === null) {
      reply(401, { errors: [{ code: 'UNAUTHORIZED', message: 'authentication failed' }] });
      return;
    }
    if (user !== undefined) entry.user = user;
    const access: Access[] = [];
    for (const scope of scopes) {
      const wanted = parseScope(scope);
      if (wanted?.type !== 'repository') continue;
      const allowed =
        user !== undefined ? wanted.actions : options.isPublic?.(wanted.name) ? wanted.actions.filter((a) => a === 'pull') : [];
      if (allowed.length > 0) access.push({ ...wanted, actions: allowed });
    }
    const token = mint(user ?? '', access);
    reply(200, { token, access_token: token, expires_in: expiresIn, issued_at: new Date().toISOString() });
  }

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    certificatePem: cert.pem,
    mint,
    log,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
