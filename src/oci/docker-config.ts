/**
 * Docker credential files (pure): `config.json` / `.dockerconfigjson` (`{"auths": {...}}`) and the
 * legacy `.dockercfg` (the map itself), parsed into a keyring, and the kubelet's matching rules
 * for picking the credentials of one image: keys with or without scheme, Docker Hub's many names
 * (`https://index.docker.io/v1/`, `docker.io`, `index.docker.io`, `registry-1.docker.io`), a path
 * in the key as a repository prefix, `*` wildcards per DNS label, the most specific key first.
 */
import { isRecord } from '../common/json.js';
import { hostPatternMatches } from './host-pattern.js';
import type { Credentials } from './registry-auth.js';

/** One credential entry and where it applies. */
export interface KeyringEntry {
  /** `host[:port]` pattern, lowercased, Docker Hub names folded to `docker.io`; may hold `*`. */
  host: string;
  /** Repository prefix (`team` in `ghcr.io/team`), '' for the whole registry. */
  path: string;
  credentials: Credentials;
}

/** Credential entries in file order. */
export type Keyring = readonly KeyringEntry[];

/** A parsed file: the usable entries, and why the others were left out. */
export interface ParsedKeyring {
  keyring: KeyringEntry[];
  problems: string[];
}

const DOCKER_HUB_NAMES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);
/** Path parts that name the registry API version, not a repository (`https://index.docker.io/v1/`). */
const API_PATHS = new Set(['v1', 'v2']);

/** Splits a credentials key into host pattern and repository prefix; undefined when it names no host. */
export function parseKeyringKey(key: string): { host: string; path: string } | undefined {
  const schemeless = key.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const slash = schemeless.indexOf('/');
  let host = (slash < 0 ? schemeless : schemeless.slice(0, slash)).toLowerCase();
  const parts = (slash < 0 ? '' : schemeless.slice(slash + 1)).split('/').filter((p) => p !== '');
  if (host === '' || /[\s@?#]/.test(host)) return undefined;
  if (DOCKER_HUB_NAMES.has(host)) host = 'docker.io';
  const path = parts.join('/');
  return { host, path: API_PATHS.has(path) ? '' : path };
}

function decodeAuth(auth: string): Credentials | undefined {
  const text = Buffer.from(auth.trim(), 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** Entries of an `auths`-style map (`{ "<key>": { auth | username+password } }`). */
function entriesOf(auths: Record<string, unknown>, what: string, out: ParsedKeyring): void {
  for (const [key, value] of Object.entries(auths)) {
    const where = parseKeyringKey(key);
    if (where === undefined) {
      out.problems.push(`${what}: key "${key}" names no registry host`);
      continue;
    }
    if (!isRecord(value)) {
      out.problems.push(`${what}: entry "${key}" is not an object`);
      continue;
    }
    let credentials: Credentials | undefined;
    if (typeof value.auth === 'string' && value.auth.trim() !== '') {
      credentials = decodeAuth(value.auth);
      if (credentials === undefined) out.problems.push(`${what}: entry "${key}" has an "auth" that is not base64 of user:password`);
    } else if (typeof value.username === 'string' && value.username !== '' && typeof value.password === 'string') {
      credentials = { username: value.username, password: value.password };
    } else {
      const token = typeof value.identitytoken === 'string' ? ' (identity tokens are not supported)' : '';
      out.problems.push(`${what}: entry "${key}" has neither "auth" nor "username" and "password"${token}`);
    }
    if (credentials !== undefined) out.keyring.push({ ...where, credentials });
  }
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, which holds credentials: say only what is wrong.
    throw new Error(`${what} is not valid JSON`);
  }
  if (!isRecord(doc)) throw new Error(`${what} is not a JSON object`);
  return doc;
}

/**
 * Parses a docker `config.json` or `.dockerconfigjson`. Throws when the text is not a JSON object;
 * unusable entries and credential helpers (which the bridge cannot run) become problems.
 */
export function parseDockerConfigJson(text: string, what: string): ParsedKeyring {
  const doc = parseObject(text, what);
  const out: ParsedKeyring = { keyring: [], problems: [] };
  if (doc.auths !== undefined && !isRecord(doc.auths)) throw new Error(`${what}: "auths" is not an object`);
  entriesOf(doc.auths ?? {}, what, out);
  if (doc.credsStore !== undefined || doc.credHelpers !== undefined) {
    out.problems.push(`${what}: credential helpers ("credsStore", "credHelpers") are not supported; put the credentials in "auths"`);
  }
  return out;
}

/** Parses a legacy `.dockercfg` (the `auths` map without the wrapper). */
export function parseDockercfg(text: string, what: string): ParsedKeyring {
  const out: ParsedKeyring = { keyring: [], problems: [] };
  entriesOf(parseObject(text, what), what, out);
  return out;
}

function pathMatches(prefix: string, repository: string): boolean {
  return prefix === '' || repository === prefix || repository.startsWith(`${prefix}/`);
}

/**
 * The credentials for `repository` on `registry` (`docker.io` for Docker Hub, else `host[:port]`):
 * an exact host beats a wildcard, a longer repository prefix beats a shorter one, and among equals
 * the first entry wins.
 */
export function lookupCredentials(keyring: Keyring, registry: string, repository: string): Credentials | undefined {
  const host = registry.toLowerCase();
  let best: KeyringEntry | undefined;
  let bestScore = -1;
  for (const entry of keyring) {
    if (!hostPatternMatches(entry.host, host) || !pathMatches(entry.path, repository)) continue;
    const score = (entry.host.includes('*') ? 0 : 1_000_000) + entry.path.length;
    if (score > bestScore) {
      best = entry;
      bestScore = score;
    }
  }
  return best?.credentials;
}
