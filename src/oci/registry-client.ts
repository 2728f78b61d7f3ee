/**
 * Registry client: image reference → manifest (index → platform manifest) → config blob →
 * `config.Labels`, over the OCI distribution HTTP API with Basic or Bearer-token auth.
 */
import { createHash } from 'node:crypto';
import { RegistryError } from '../errors.js';
import { pickChallenge } from './challenge.js';
import { MANIFEST_ACCEPT, parseConfigLabels, parseManifest } from './manifest.js';
import { DEFAULT_PLATFORM, formatPlatform, selectManifest, type Platform } from './platform.js';
import { formatReference, manifestReference, parseImageReference, type ImageReference } from './reference.js';
import { createAuthenticator, deniedMessage, type AuthTarget, type Credentials } from './registry-auth.js';
import { httpGet, type HttpResult, type HttpSettings } from './registry-http.js';
import type { ImageMetadata, LabelSource } from './types.js';

export type { Credentials } from './registry-auth.js';

/** Default budget of one registry request, in milliseconds. */
export const DEFAULT_REGISTRY_TIMEOUT_MS = 10_000;
/** Largest manifest accepted (the distribution registry itself caps manifests at 4 MiB). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Largest image config blob accepted. */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

/** Options of createRegistryClient. */
export interface RegistryClientOptions {
  /** Credentials for a registry (`docker.io` for Docker Hub, else `host[:port]` as written); none → anonymous. */
  credentialsFor?: (registry: string) => Credentials | undefined;
  /** `host[:port]` spoken to over plain HTTP; exact match, so list `localhost:5000` or `127.0.0.1:5000` explicitly. */
  insecureHosts?: readonly string[];
  /** Platform picked from multi-arch indexes; default linux/amd64. */
  platform?: Platform;
  /** Budget per request, in milliseconds; default 10 s. */
  timeoutMs?: number;
  /** Clock for token expiry; default Date.now. */
  now?: () => number;
}

interface Pull {
  ref: ImageReference;
  target: AuthTarget;
  base: string;
  http: HttpSettings;
}

/**
 * A LabelSource that asks registries directly. Tokens are cached per registry+scope; nothing
 * else is cached (wrap it with createCachedLabelSource for that).
 */
export function createRegistryClient(options: RegistryClientOptions = {}): LabelSource {
  const insecureHosts = new Set((options.insecureHosts ?? []).map((h) => h.toLowerCase()));
  const timeoutMs = options.timeoutMs ?? DEFAULT_REGISTRY_TIMEOUT_MS;
  const platform = options.platform ?? DEFAULT_PLATFORM;
  const auth = createAuthenticator(options.credentialsFor ?? (() => undefined), options.now ?? Date.now);

  /** GET with cached auth; on 401 answer the challenge once and retry. Maps 401/403/404/5xx. */
  async function get(pull: Pull, path: string, accept: string, maxBytes: number, what: string): Promise<HttpResult> {
    const url = new URL(`${pull.base}/v2/${pull.ref.repository}/${path}`);
    const headers: Record<string, string> = { accept };
    const cached = auth.cached(pull.target);
    if (cached !== undefined) headers.authorization = cached;
    let res = await httpGet(url, headers, maxBytes, pull.http);
    if (res.status === 401) {
      if (cached !== undefined) auth.forget(pull.target);
      const challenge = pickChallenge(res.headers.get('www-authenticate'));
      const answer = challenge ? await auth.answer(challenge, pull.target, pull.http) : undefined;
      if (answer === undefined) throw new RegistryError('denied', deniedMessage(pull.target));
      res = await httpGet(url, { ...headers, authorization: answer }, maxBytes, pull.http);
    }
    if (res.status === 200) return res;
    if (res.status === 401 || res.status === 403) {
      auth.forget(pull.target);
      throw new RegistryError('denied', deniedMessage(pull.target));
    }
    if (res.status === 404) throw new RegistryError('not_found', `${what} not found`);
    if (res.status >= 500 || res.status === 429) {
      throw new RegistryError('unavailable', `${pull.ref.registry} answered HTTP ${res.status} for ${what}`);
    }
    throw new RegistryError('invalid', `${pull.ref.registry} answered HTTP ${res.status} for ${what}`);
  }

  function digestOf(res: HttpResult, expected: string | undefined, what: string): string {
    const computed = `sha256:${createHash('sha256').update(res.body).digest('hex')}`;
    if (expected?.startsWith('sha256:') && expected !== computed) {
      throw new RegistryError('invalid', `${what}: content does not match digest ${expected}`);
    }
    return expected ?? res.headers.get('docker-content-digest') ?? computed;
  }

  async function imageMetadata(image: string, signal?: AbortSignal): Promise<ImageMetadata> {
    const ref = parseImageReference(image);
    const scheme = insecureHosts.has(ref.apiHost) || insecureHosts.has(ref.registry) ? 'http' : 'https';
    const http: HttpSettings = signal ? { timeoutMs, insecureHosts, signal } : { timeoutMs, insecureHosts };
    const target: AuthTarget = { registry: ref.registry, repository: ref.repository, scope: `repository:${ref.repository}:pull` };
    const pull: Pull = { ref, target, base: `${scheme}://${ref.apiHost}`, http };
    const name = formatReference(ref);

    let res = await get(pull, `manifests/${manifestReference(ref)}`, MANIFEST_ACCEPT, MAX_MANIFEST_BYTES, name);
    let digest = digestOf(res, ref.digest, name);
    let manifest = parseManifest(res.body, res.headers.get('content-type'), name);
    if (manifest.kind === 'index') {
      const entry = selectManifest(manifest.manifests, platform);
      if (entry === undefined) throw new RegistryError('invalid', `${name} is an index without any runnable image (wanted ${formatPlatform(platform)})`);
      const what = `${name} (${entry.digest})`;
      res = await get(pull, `manifests/${entry.digest}`, MANIFEST_ACCEPT, MAX_MANIFEST_BYTES, what);
      digest = digestOf(res, entry.digest, what);
      manifest = parseManifest(res.body, res.headers.get('content-type'), what);
      if (manifest.kind !== 'image') throw new RegistryError('invalid', `${what}: nested image indexes are not supported`);
    }
    const configWhat = `config blob ${manifest.config.digest} of ${name}`;
    const blob = await get(pull, `blobs/${manifest.config.digest}`, `${manifest.config.mediaType}, */*`, MAX_CONFIG_BYTES, configWhat);
    digestOf(blob, manifest.config.digest, configWhat);
    return { digest, labels: parseConfigLabels(blob.body, configWhat) };
  }

  return { imageMetadata };
}
