/**
 * Answers registry auth challenges and remembers the answers: Bearer tokens from the realm
 * (anonymous, or Basic credentials when the caller has some) until `expires_in`, and Basic
 * headers per host+scope+credentials, so one image costs one challenge round-trip at most and
 * an answer obtained with one workload's credentials never serves a pull made with others.
 */
import { createHash } from 'node:crypto';
import { RegistryError } from '../common/errors.js';
import type { AuthChallenge } from './challenge.js';
import { httpGet, type HttpSettings } from './registry-http.js';

/** Username/password for one registry (Basic, or exchanged for a token at the realm). */
export interface Credentials {
  username: string;
  password: string;
}

/** Lifetime of a token whose response names no `expires_in` (the Docker token spec default). */
const DEFAULT_TOKEN_TTL_S = 60;
/** Largest token response accepted. */
const MAX_TOKEN_BYTES = 64 * 1024;
/** Cached answers kept before expired/oldest ones are evicted. */
const MAX_CACHED_ANSWERS = 1000;

interface CachedAnswer {
  header: string;
  expiresAt: number;
}

/** What the authenticator needs to know about the pull it answers for. */
export interface AuthTarget {
  /** Registry as in the reference (`docker.io`, `ghcr.io`, `host:5000`): the credentials key. */
  registry: string;
  /** Repository, for messages. */
  repository: string;
  /** `repository:<name>:pull`. */
  scope: string;
  /** What this pull authenticates with; none → anonymous. */
  credentials?: Credentials;
}

/** Thrown-on-failure challenge answering with a per host+scope cache. */
export interface Authenticator {
  /** Cached `Authorization` value for this target, if still valid. */
  cached(target: AuthTarget): string | undefined;
  /** Drops the cached answer (the registry refused it). */
  forget(target: AuthTarget): void;
  /** Answers `challenge`; undefined when there is nothing to answer with (Basic, no credentials). */
  answer(challenge: AuthChallenge, target: AuthTarget, http: HttpSettings): Promise<string | undefined>;
}

/** A short, non-reversible name of a credential pair ('anonymous' without), for cache keys. */
export function credentialsFingerprint(c: Credentials | undefined): string {
  if (c === undefined) return 'anonymous';
  return createHash('sha256').update(`${c.username}\0${c.password}`).digest('hex').slice(0, 16);
}

/** Builds an Authenticator; `now` is injectable so token expiry is testable. */
export function createAuthenticator(now: () => number): Authenticator {
  const answers = new Map<string, CachedAnswer>();
  const keyOf = (t: AuthTarget): string => `${t.registry} ${t.scope} ${credentialsFingerprint(t.credentials)}`;

  function remember(target: AuthTarget, header: string, expiresAt: number): void {
    if (answers.size >= MAX_CACHED_ANSWERS) {
      const t = now();
      for (const [k, v] of answers) if (v.expiresAt <= t) answers.delete(k);
      if (answers.size >= MAX_CACHED_ANSWERS) answers.delete(answers.keys().next().value as string);
    }
    answers.set(keyOf(target), { header, expiresAt });
  }

  async function fetchToken(
    challenge: Extract<AuthChallenge, { scheme: 'bearer' }>,
    target: AuthTarget,
    http: HttpSettings,
  ): Promise<string> {
    let realm: URL;
    try {
      realm = new URL(challenge.realm);
    } catch (err) {
      throw new RegistryError('invalid', `${target.registry} sent an unusable token realm "${challenge.realm}"`, { cause: err });
    }
    if (challenge.service !== undefined) realm.searchParams.set('service', challenge.service);
    realm.searchParams.set('scope', target.scope);
    const creds = target.credentials;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (creds) headers.authorization = basicHeader(creds);
    const res = await httpGet(realm, headers, MAX_TOKEN_BYTES, http);
    if (res.status === 401 || res.status === 403) {
      const why = creds ? ` (token service ${realm.host} rejected the credentials for ${target.registry})` : '';
      throw new RegistryError('denied', `${deniedMessage(target)}${why}`);
    }
    if (res.status >= 500 || res.status === 429) {
      throw new RegistryError('unavailable', `token service ${realm.host} answered HTTP ${res.status}`);
    }
    if (res.status !== 200) throw new RegistryError('invalid', `token service ${realm.host} answered HTTP ${res.status}`);
    let doc: { token?: unknown; access_token?: unknown; expires_in?: unknown };
    try {
      doc = JSON.parse(Buffer.from(res.body).toString('utf8')) as typeof doc;
    } catch (err) {
      throw new RegistryError('invalid', `token service ${realm.host} sent invalid JSON`, { cause: err });
    }
    const token = typeof doc.token === 'string' && doc.token !== '' ? doc.token : doc.access_token;
    if (typeof token !== 'string' || token === '') throw new RegistryError('invalid', `token service ${realm.host} sent no token`);
    const ttl = typeof doc.expires_in === 'number' && doc.expires_in > 0 ? doc.expires_in : DEFAULT_TOKEN_TTL_S;
    const header = `Bearer ${token}`;
    remember(target, header, now() + ttl * 1000);
    return header;
  }

  return {
    cached(target) {
      const hit = answers.get(keyOf(target));
      if (hit === undefined) return undefined;
      if (hit.expiresAt > now()) return hit.header;
      answers.delete(keyOf(target));
      return undefined;
    },
    forget(target) {
      answers.delete(keyOf(target));
    },
    async answer(challenge, target, http) {
      if (challenge.scheme === 'bearer') return fetchToken(challenge, target, http);
      const creds = target.credentials;
      if (creds === undefined) return undefined;
      const header = basicHeader(creds);
      remember(target, header, Number.POSITIVE_INFINITY);
      return header;
    },
  };
}

/** `Basic base64(user:pass)`. */
function basicHeader(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`, 'utf8').toString('base64')}`;
}

/** The actionable message for a refused pull. */
export function deniedMessage(target: { registry: string; repository: string }): string {
  return `${target.registry} denied pull of ${target.repository}: add an imagePullSecret or REGISTRY_AUTH_FILE`;
}
