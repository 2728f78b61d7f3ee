/**
 * The label cache in front of the registry client. A digest's labels never change, so they are
 * kept for good (per platform, as an index resolves per platform); a tag is resolved to a digest
 * with one HEAD, reused for a short TTL. Both live in a persistent store, so a restart costs
 * nothing. In steady state a digest reference makes no request and a tag one HEAD per TTL.
 * Permanent failures are remembered briefly in memory, per credentials: an anonymous "denied"
 * never hides an image that a workload's credentials can read.
 */
import { RegistryError } from '../common/errors.js';
import { formatReference, parseImageReference } from './reference.js';
import { credentialsFingerprint, type Credentials } from './registry-auth.js';
import type { ImageMetadata, LabelSource, LookupOptions, RegistryClient } from './oci-types.js';

/** How long a tag → digest answer is reused by default: 5 minutes. */
export const DEFAULT_TAG_TTL_MS = 5 * 60_000;
/** How long a permanent failure (denied, not found, invalid) is reused by default: 30 seconds. */
const DEFAULT_FAILURE_TTL_MS = 30_000;
/** Failures remembered before the oldest are dropped. */
const MAX_FAILURES = 2000;

/** Where the cache keeps what it learnt (SQLite in production: src/store/image-cache.ts). */
export interface ImageCacheStore {
  /** Labels of `digest` as read for `platform`, if known. */
  getImage(digest: string, platform: string): ImageMetadata | undefined;
  putImage(platform: string, meta: ImageMetadata, now: number): void;
  /** The digest a reference (`host/repo:tag`) pointed to, and when that was checked. */
  getTag(reference: string): { digest: string; checkedAt: number } | undefined;
  putTag(reference: string, digest: string, now: number): void;
}

/** Options of createCachedLabelSource. */
export interface LabelCacheOptions {
  /** Tag → digest lifetime in ms; default 5 min. */
  tagTtlMs?: number;
  /** Lifetime of denied/not_found/invalid failures in ms; default 30 s; 0 disables. */
  failureTtlMs?: number;
  /** Clock; default Date.now. */
  now?: () => number;
  /** Told of every cache look-up (tag → digest, digest → labels) and whether it was answered from the cache. */
  onCache?: (cache: 'tag' | 'digest', hit: boolean) => void;
}

const isPermanent = (err: unknown): err is RegistryError =>
  err instanceof RegistryError && (err.failure === 'denied' || err.failure === 'not_found' || err.failure === 'invalid');

/** A LabelSource answering from `store` when it can and asking `client` when it must. */
export function createCachedLabelSource(client: RegistryClient, store: ImageCacheStore, options: LabelCacheOptions = {}): LabelSource {
  const tagTtlMs = options.tagTtlMs ?? DEFAULT_TAG_TTL_MS;
  const failureTtlMs = options.failureTtlMs ?? DEFAULT_FAILURE_TTL_MS;
  const now = options.now ?? Date.now;
  const onCache = options.onCache;
  const failures = new Map<string, { error: RegistryError; expiresAt: number }>();

  /** Runs `ask` unless the same question with the same credentials failed for good recently. */
  async function guarded<T>(key: string, ask: () => Promise<T>): Promise<T> {
    const hit = failures.get(key);
    if (hit !== undefined && hit.expiresAt > now()) throw hit.error;
    failures.delete(key);
    try {
      return await ask();
    } catch (err) {
      if (isPermanent(err) && failureTtlMs > 0) {
        if (failures.size >= MAX_FAILURES) failures.delete(failures.keys().next().value as string);
        failures.set(key, { error: err, expiresAt: now() + failureTtlMs });
      }
      throw err;
    }
  }

  async function imageMetadata(image: string, lookup: LookupOptions = {}): Promise<ImageMetadata> {
    const ref = parseImageReference(image);
    let credentials: Promise<Credentials | undefined> | undefined;
    const resolveCredentials = (): Promise<Credentials | undefined> =>
      (credentials ??= Promise.resolve(lookup.credentials?.(ref.registry, ref.repository)));
    /** The client is handed the credentials already looked up, so they are looked up once. */
    const ask = async (): Promise<{ key: string; options: LookupOptions }> => {
      const c = await resolveCredentials();
      const o: LookupOptions = { credentials: () => c };
      if (lookup.signal) o.signal = lookup.signal;
      return { key: lookup.credentials ? credentialsFingerprint(c) : 'default', options: o };
    };

    let digest = ref.digest;
    if (digest === undefined) {
      const name = formatReference(ref);
      const known = store.getTag(name);
      if (known !== undefined && now() - known.checkedAt < tagTtlMs && known.checkedAt <= now()) {
        onCache?.('tag', true);
        digest = known.digest;
      } else {
        onCache?.('tag', false);
        const { key, options } = await ask();
        digest = await guarded(`${name} ${key}`, () => client.resolveTag(ref, options));
        store.putTag(name, digest, now());
      }
    }
    const cached = store.getImage(digest, client.platform);
    onCache?.('digest', cached !== undefined);
    if (cached !== undefined) return cached;
    const { key, options } = await ask();
    const pinned = { ...ref, digest };
    const meta = await guarded(`${formatReference(pinned)} ${key}`, () => client.readDigest(pinned, options));
    store.putImage(client.platform, meta, now());
    return meta;
  }

  return { imageMetadata };
}
