/**
 * Registry client: image reference → manifest (index → platform manifest) → config blob →
 * `config.Labels`, over the OCI distribution HTTP API with Basic or Bearer-token auth; and a tag →
 * digest resolution with one HEAD, for the cache in front of it.
 */
import { createHash } from 'node:crypto';
import { RegistryError } from '../common/errors.js';
import { pickChallenge } from './challenge.js';
import { MANIFEST_ACCEPT, parseConfigLabels, parseManifest } from './manifest.js';
import { DEFAULT_PLATFORM, formatPlatform, selectManifest, type Platform } from './platform.js';
import { formatReference, manifestReference, parseImageReference, type ImageReference } from './reference.js';
import { createAuthenticator, deniedMessage, type AuthTarget, type Credentials } from './registry-auth.js';
import { httpGet, type HttpResult, type HttpSettings } from './registry-http.js';
import type { ImageMetadata, LookupOptions, RegistryClient } from './oci-types.js';

export type { Credentials } from './registry-auth.js';

/** Default budget of one registry request, in milliseconds. */
export const DEFAULT_REGISTRY_TIMEOUT_MS = 10_000;
/** Largest manifest accepted (the distribution registry itself caps manifests at 4 MiB). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Largest image config blob accepted. */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;
/** A `Docker-Content-Digest` value worth trusting. */
const DIGEST_HEADER = /^sha256:[a-f0-9]{64}$|^sha512:[a-f0-9]{128}$/;

/** Options of createRegistryClient. */
export interface RegistryClientOptions {
  /** Default credentials, used when a call brings none of its own (`docker.io` for Docker Hub, else `host[:port]`). */
  credentialsFor?: (registry: string, repository: string) => Credentials | undefined;
  /** `host[:port]` spoken to over plain HTTP; exact match, so list `localhost:5000` or `127.0.0.1:5000` explicitly. */
  insecureHosts?: readonly string[];
  /** `host[:port]` patterns (`*` per label) of every host that may be contacted (registries, redirects, token services); empty: any. */
  allowedHosts?: readonly string[];
  /** Platform picked from multi-arch indexes; default linux/amd64. */
  platform?: Platform;
  /** Budget per request, in milliseconds; default 10 s. */
  timeoutMs?: number;
  /** Clock for token expiry; default Date.now. */
  now?: () => number;
  /** Told of every HTTP exchange (registries and token services), for metrics; status 0 = no answer. */
  onResponse?: (method: string, status: number) => void;
}

interface Pull {
  ref: ImageReference;
  target: AuthTarget;
  base: string;
  http: HttpSettings;
  /** The credentials this pull has for another registry host (one a request was redirected to). */
  credentialsAt: (host: string) => Promise<Credentials | undefined>;
}

/**
 * A RegistryClient that asks registries directly. Tokens are cached per registry+scope+credentials;
 * nothing else is cached (createCachedLabelSource does that).
 */
export function createRegistryClient(options: RegistryClientOptions = {}): RegistryClient {
  const insecureHosts = new Set((options.insecureHosts ?? []).map((h) => h.toLowerCase()));
  const allowedHosts = (options.allowedHosts ?? []).map((h) => h.toLowerCase());
  const timeoutMs = options.timeoutMs ?? DEFAULT_REGISTRY_TIMEOUT_MS;
  const platform = options.platform ?? DEFAULT_PLATFORM;
  const auth = createAuthenticator(options.now ?? Date.now);

  async function pullFor(ref: ImageReference, lookup: LookupOptions): Promise<Pull> {
    const credentialsAt = async (registry: string): Promise<Credentials | undefined> => {
      const own = lookup.credentials ? await lookup.credentials(registry, ref.repository) : undefined;
      return own ?? options.credentialsFor?.(registry, ref.repository);
    };
    const credentials = await credentialsAt(ref.registry);
    const scheme = insecureHosts.has(ref.apiHost) || insecureHosts.has(ref.registry) ? 'http' : 'https';
    const http: HttpSettings = { timeoutMs, insecureHosts, allowedHosts };
    if (lookup.signal) http.signal = lookup.signal;
    if (options.onResponse) http.onResponse = options.onResponse;
    const target: AuthTarget = { registry: ref.registry, repository: ref.repository, scope: `repository:${ref.repository}:pull` };
    if (credentials) target.credentials = credentials;
    return { ref, target, base: `${scheme}://${ref.apiHost}`, http, credentialsAt };
  }

  /**
   * The auth target of a 401 that came from another host than the pull's (a redirect target):
   * credentials are looked up for the host that challenged (containerd's rule), none → anonymous;
   * the pull's own credentials never answer another host's challenge.
   */
  async function challengerTarget(pull: Pull, challenger: URL): Promise<AuthTarget> {
    const registry = challenger.host.toLowerCase();
    const target: AuthTarget = { registry, repository: pull.ref.repository, scope: pull.target.scope };
    const credentials = await pull.credentialsAt(registry);
    if (credentials) target.credentials = credentials;
    return target;
  }

  /** One request with cached auth; on 401 answer the challenge once and retry (a redirect target's for itself). Maps 401/403/404/5xx. */
  async function request(
    pull: Pull,
    method: 'GET' | 'HEAD',
    path: string,
    accept: string,
    maxBytes: number,
    what: string,
  ): Promise<HttpResult> {
    const url = new URL(`${pull.base}/v2/${pull.ref.repository}/${path}`);
    const headers: Record<string, string> = { accept };
    const cached = auth.cached(pull.target);
    if (cached !== undefined) headers.authorization = cached;
    let res = await httpGet(url, headers, maxBytes, pull.http, method);
    if (res.status === 401 && res.url.origin === url.origin) {
      if (cached !== undefined) auth.forget(pull.target);
      res = await httpGet(url, { ...headers, authorization: await answerFor(res, pull.target, pull) }, maxBytes, pull.http, method);
    }
    if (res.status === 401 && res.url.origin !== url.origin) return askChallenger(pull, res, method, accept, maxBytes, what);
    return checked(res, pull, pull.target, what);
  }

  /**
   * A redirect target answered 401: it is answered for itself (its cached answer first, then its
   * challenge once) and asked directly; the pull's own credentials never reach it.
   */
  async function askChallenger(
    pull: Pull,
    challenged: HttpResult,
    method: 'GET' | 'HEAD',
    accept: string,
    maxBytes: number,
    what: string,
  ): Promise<HttpResult> {
    const target = await challengerTarget(pull, challenged.url);
    const cached = auth.cached(target);
    let res =
      cached === undefined ? challenged : await httpGet(challenged.url, { accept, authorization: cached }, maxBytes, pull.http, method);
    if (res.status === 401) {
      if (cached !== undefined) auth.forget(target);
      res = await httpGet(challenged.url, { accept, authorization: await answerFor(res, target, pull) }, maxBytes, pull.http, method);
    }
    return checked(res, pull, target, what);
  }

  /** The `Authorization` answering the challenge of a 401 for `target`; denied when there is nothing to answer with. */
  async function answerFor(challenged: HttpResult, target: AuthTarget, pull: Pull): Promise<string> {
    const challenge = pickChallenge(challenged.headers.get('www-authenticate'));
    const answer = challenge ? await auth.answer(challenge, target, pull.http) : undefined;
    if (answer === undefined) throw new RegistryError('denied', deniedMessage(target));
    return answer;
  }

  /** The answer to a (possibly re-authenticated) request, or the RegistryError its status means. */
  function checked(res: HttpResult, pull: Pull, target: AuthTarget, what: string): HttpResult {
    if (res.status === 200) return res;
    if (res.status === 401 || res.status === 403) {
      auth.forget(target);
      throw new RegistryError('denied', deniedMessage(target));
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
    return expected ?? computed;
  }

  /** Manifest at `reference` → (platform manifest) → config labels. */
  async function readFrom(pull: Pull, reference: string, expected: string | undefined, name: string): Promise<ImageMetadata> {
    let res = await request(pull, 'GET', `manifests/${reference}`, MANIFEST_ACCEPT, MAX_MANIFEST_BYTES, name);
    const digest = digestOf(res, expected, name);
    let manifest = parseManifest(res.body, res.headers.get('content-type'), name);
    let platformDigest: string | undefined;
    if (manifest.kind === 'index') {
      const entry = selectManifest(manifest.manifests, platform);
      if (entry === undefined)
        throw new RegistryError('invalid', `${name} is an index without any runnable image (wanted ${formatPlatform(platform)})`);
      const what = `${name} (${entry.digest})`;
      res = await request(pull, 'GET', `manifests/${entry.digest}`, MANIFEST_ACCEPT, MAX_MANIFEST_BYTES, what);
      platformDigest = digestOf(res, entry.digest, what);
      manifest = parseManifest(res.body, res.headers.get('content-type'), what);
      if (manifest.kind !== 'image') throw new RegistryError('invalid', `${what}: nested image indexes are not supported`);
    }
    const configWhat = `config blob ${manifest.config.digest} of ${name}`;
    const blob = await request(
      pull,
      'GET',
      `blobs/${manifest.config.digest}`,
      `${manifest.config.mediaType}, */*`,
      MAX_CONFIG_BYTES,
      configWhat,
    );
    digestOf(blob, manifest.config.digest, configWhat);
    const labels = parseConfigLabels(blob.body, configWhat);
    return platformDigest === undefined ? { digest, labels } : { digest, platformDigest, labels };
  }

  return {
    platform: formatPlatform(platform),
    async imageMetadata(image, lookup = {}) {
      const ref = parseImageReference(image);
      return readFrom(await pullFor(ref, lookup), manifestReference(ref), ref.digest, formatReference(ref));
    },
    async readDigest(ref, lookup = {}) {
      if (ref.digest === undefined) throw new RegistryError('invalid', `readDigest needs a digest reference, got ${formatReference(ref)}`);
      return readFrom(await pullFor(ref, lookup), ref.digest, ref.digest, formatReference(ref));
    },
    async resolveTag(ref, lookup = {}) {
      const tag = ref.tag ?? 'latest';
      const name = `${ref.registry}/${ref.repository}:${tag}`;
      const pull = await pullFor(ref, lookup);
      try {
        const head = await request(pull, 'HEAD', `manifests/${tag}`, MANIFEST_ACCEPT, 0, name);
        const header = head.headers.get('docker-content-digest')?.trim();
        if (header !== undefined && DIGEST_HEADER.test(header)) return header;
      } catch (err) {
        // A registry that refuses HEAD (405 and the like) is asked with GET; anything else stands.
        if (!(err instanceof RegistryError && err.failure === 'invalid')) throw err;
      }
      const res = await request(pull, 'GET', `manifests/${tag}`, MANIFEST_ACCEPT, MAX_MANIFEST_BYTES, name);
      return digestOf(res, undefined, name);
    },
  };
}
