/**
 * GitHub App authentication in the simulator: RS256 JWTs verified with the App's public key, the App
 * endpoints (`GET /app`, `GET /repos/{o}/{r}/installation`, `POST /app/installations/{id}/access_tokens`)
 * and installation tokens that expire and open only their installation's repositories.
 */
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { Reply } from './routes.js';
import { notFound } from './routes.js';

/** One installation of the App: on an account, for all of its repositories or the listed ones. */
export interface SimInstallation {
  id: number;
  account: string;
  /** Repository names (without owner) the installation may access; when omitted, every repository of the account that exists. */
  repositories?: string[];
  suspended?: boolean;
}

export interface SimAppOptions {
  id: number;
  slug?: string;
  /** Verifies the App's JWTs: PEM text or a KeyObject (a private key's public half is taken). */
  publicKey: string | KeyObject;
  /** Permissions of the App (default deployments write, contents read, metadata read). */
  permissions?: Record<string, string>;
  installations: SimInstallation[];
  /** Installation token lifetime (default 3600 s, as on GitHub). */
  tokenTtlSeconds?: number;
}

/** How a request authenticated, as the simulator saw it. */
export type Presented =
  | { kind: 'none' }
  | { kind: 'jwt'; ok: boolean; message?: string }
  | { kind: 'installation'; installation: SimInstallation; expired: boolean; permissions: Record<string, string> }
  | { kind: 'token'; token: string };

const unauthorized = (message: string): Reply => ({
  status: 401,
  body: { message, documentation_url: 'https://docs.github.com/rest', status: '401' },
});
const ts = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The App side of the simulator. */
export class SimApp {
  private readonly key: KeyObject;
  private readonly tokens = new Map<string, { installationId: number; expiresAt: number; permissions: Record<string, string> }>();
  /** Installation tokens issued so far, oldest first. */
  readonly issued: Array<{ installationId: number; token: string; expiresAt: number; permissions: unknown }> = [];

  constructor(private readonly o: SimAppOptions) {
    this.key = typeof o.publicKey !== 'string' && o.publicKey.type === 'public' ? o.publicKey : createPublicKey(o.publicKey);
  }

  /** Sorts a presented credential (the part after `token` / `Bearer`). */
  identify(credential: string | undefined): Presented {
    if (credential === undefined) return { kind: 'none' };
    if (credential.split('.').length === 3) return { kind: 'jwt', ...this.verifyJwt(credential) };
    const held = this.tokens.get(credential);
    if (held === undefined) return { kind: 'token', token: credential };
    const installation = this.o.installations.find((i) => i.id === held.installationId)!;
    return { kind: 'installation', installation, expired: held.expiresAt <= Date.now(), permissions: held.permissions };
  }

  /** True when a token minted with `permissions` holds `name` at `level` (write includes read). */
  static permits(permissions: Record<string, string>, name: string, level: 'read' | 'write'): boolean {
    const rank = (p: string | undefined) => (p === 'write' ? 2 : p === 'read' ? 1 : 0);
    return rank(permissions[name]) >= rank(level);
  }

  /** True when an installation token may touch the repository. */
  canAccess(installation: SimInstallation, owner: string, repo: string): boolean {
    return (
      installation.account.toLowerCase() === owner.toLowerCase() &&
      (installation.repositories === undefined || installation.repositories.some((r) => r.toLowerCase() === repo.toLowerCase()))
    );
  }

  /** Answers the App endpoints; undefined for every other path. `exists` says whether a repository exists. */
  answer(
    method: string,
    path: string,
    presented: Presented,
    body: unknown,
    exists: (owner: string, repo: string) => boolean,
  ): Reply | undefined {
    const installationOf = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(path);
    const tokenFor = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    const isApp = method === 'GET' && path === '/app';
    if (!(method === 'GET' && installationOf) && !(method === 'POST' && tokenFor) && !isApp) return undefined;
    if (presented.kind !== 'jwt') return unauthorized('A JSON web token could not be decoded');
    if (!presented.ok) return unauthorized(presented.message ?? 'A JSON web token could not be decoded');
    if (isApp) return { status: 200, body: this.appBody() };
    if (installationOf) {
      const [, owner = '', repo = ''] = installationOf;
      const found = this.o.installations.find((i) => this.canAccess(i, owner, repo));
      return found === undefined || !exists(owner, repo) ? notFound() : { status: 200, body: this.installationBody(found) };
    }
    const installation = this.o.installations.find((i) => i.id === Number(tokenFor![1]));
    if (installation === undefined) return notFound();
    if (installation.suspended)
      return { status: 403, body: { message: 'This installation has been suspended', documentation_url: 'https://docs.github.com/rest' } };
    const asked = (body as { permissions?: Record<string, string> } | undefined)?.permissions ?? this.permissions();
    const granted = this.permissions();
    if (Object.entries(asked).some(([k, v]) => (v !== 'read' && v !== 'write') || !SimApp.permits(granted, k, v))) {
      return {
        status: 422,
        body: {
          message: 'The permissions requested are not granted to this installation.',
          documentation_url: 'https://docs.github.com/rest',
        },
      };
    }
    const token = `ghs_${randomBytes(18).toString('base64url')}`;
    const expiresAt = Math.floor(Date.now() / 1000) * 1000 + (this.o.tokenTtlSeconds ?? 3600) * 1000;
    this.tokens.set(token, { installationId: installation.id, expiresAt, permissions: asked });
    this.issued.push({ installationId: installation.id, token, expiresAt, permissions: asked });
    return {
      status: 201,
      didWork: false,
      body: { token, expires_at: ts(expiresAt), permissions: asked, repository_selection: installation.repositories ? 'selected' : 'all' },
    };
  }

  /** Revokes every installation token (as `DELETE /installation/token` or an uninstall would). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  private verifyJwt(jwt: string): { ok: boolean; message?: string } {
    const [h = '', p = '', s = ''] = jwt.split('.');
    let header: { alg?: string };
    let claims: { iat?: unknown; exp?: unknown; iss?: unknown };
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return { ok: false, message: 'A JSON web token could not be decoded' };
    }
    if (header.alg !== 'RS256' || !verify('sha256', Buffer.from(`${h}.${p}`), this.key, Buffer.from(s, 'base64url'))) {
      return { ok: false, message: 'A JSON web token could not be decoded' };
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.iat !== 'number' || !Number.isInteger(claims.iat) || claims.iat > now + 60) {
      return { ok: false, message: "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued" };
    }
    if (typeof claims.exp !== 'number' || claims.exp <= now) {
      return {
        ok: false,
        message: "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
      };
    }
    if (claims.exp - claims.iat > 600) return { ok: false, message: "'Expiration time' claim ('exp') is too far in the future" };
    if (String(claims.iss) !== String(this.o.id)) return { ok: false, message: 'Integration not found' };
    return { ok: true };
  }

  private permissions(): Record<string, string> {
    return this.o.permissions ?? { deployments: 'write', contents: 'read', metadata: 'read' };
  }

  private appBody(): Record<string, unknown> {
    const slug = this.o.slug ?? 'deployment-bridge';
    return {
      id: this.o.id,
      slug,
      node_id: `A_${this.o.id}`,
      name: slug,
      description: '',
      external_url: 'https://example.invalid',
      html_url: `https://github.com/apps/${slug}`,
      owner: { login: 'acme', id: 1, type: 'Organization' },
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
      permissions: this.permissions(),
      events: [],
      installations_count: this.o.installations.length,
    };
  }

  private installationBody(i: SimInstallation): Record<string, unknown> {
    return {
      id: i.id,
      app_id: this.o.id,
      app_slug: this.o.slug ?? 'deployment-bridge',
      target_type: 'Organization',
      target_id: 1,
      account: { login: i.account, id: 1, type: 'Organization' },
      repository_selection: i.repositories ? 'selected' : 'all',
      access_tokens_url: `/app/installations/${i.id}/access_tokens`,
      permissions: this.permissions(),
      events: [],
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
      single_file_name: null,
      suspended_at: i.suspended ? '2024-02-01T00:00:00Z' : null,
      suspended_by: null,
    };
  }
}
