/**
 * In-memory cache in front of a LabelSource: a digest's labels never change, so digest
 * references are answered from memory for good; tags move, so a tag's answer is kept for a TTL.
 * Permanent failures (denied, not found, invalid) are remembered briefly so a broken image does
 * not cost one registry round-trip per workload per reconcile.
 */
import { RegistryError } from '../errors.js';
import { formatReference, parseImageReference } from './reference.js';
import type { ImageMetadata, LabelSource } from './types.js';

/** How long a tag's answer is reused by default: 5 minutes. */
export const DEFAULT_TAG_TTL_MS = 5 * 60_000;
/** How long a permanent failure is reused by default: 30 seconds. */
const DEFAULT_FAILURE_TTL_MS = 30_000;
/** Entries kept per map before the oldest are evicted. */
const DEFAULT_MAX_ENTRIES = 2000;

/** Options of createCachedLabelSource. */
export interface LabelCacheOptions {
  /** Tag → answer lifetime in ms; default 5 min. */
  tagTtlMs?: number;
  /** Lifetime of denied/not_found/invalid failures in ms; default 30 s; 0 disables. */
  failureTtlMs?: number;
  /** Bound of each map (digests, tags); default 2000. */
  maxEntries?: number;
  /** Clock; default Date.now. */
  now?: () => number;
}

type TagEntry = { expiresAt: number } & ({ ok: ImageMetadata } | { error: RegistryError });

/** Insert into an insertion-ordered map, evicting the oldest entry beyond `max`. */
function put<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

/** Wraps `inner` with the digest/tag cache described above. */
export function createCachedLabelSource(inner: LabelSource, options: LabelCacheOptions = {}): LabelSource {
  const tagTtlMs = options.tagTtlMs ?? DEFAULT_TAG_TTL_MS;
  const failureTtlMs = options.failureTtlMs ?? DEFAULT_FAILURE_TTL_MS;
  const max = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const now = options.now ?? Date.now;
  const byDigest = new Map<string, ImageMetadata>();
  /** Tag answers, and recent permanent failures of any reference. */
  const byTag = new Map<string, TagEntry>();

  function copy(m: ImageMetadata): ImageMetadata {
    return { digest: m.digest, labels: { ...m.labels } };
  }

  async function imageMetadata(image: string, signal?: AbortSignal): Promise<ImageMetadata> {
    const ref = parseImageReference(image);
    const key = ref.digest ?? formatReference(ref);
    const known = ref.digest === undefined ? undefined : byDigest.get(ref.digest);
    if (known !== undefined) return copy(known);
    const hit = byTag.get(key);
    if (hit !== undefined && hit.expiresAt > now()) {
      if ('error' in hit) throw hit.error;
      return copy(hit.ok);
    }
    if (hit !== undefined) byTag.delete(key);
    let result: ImageMetadata;
    try {
      result = copy(await inner.imageMetadata(image, signal));
    } catch (err) {
      const permanent = err instanceof RegistryError && (err.failure === 'denied' || err.failure === 'not_found' || err.failure === 'invalid');
      if (permanent && failureTtlMs > 0) {
        put(byTag, key, { error: err, expiresAt: now() + failureTtlMs }, max);
      }
      throw err;
    }
    put(byDigest, result.digest, result, max);
    if (ref.digest !== undefined) put(byDigest, ref.digest, result, max);
    else put(byTag, key, { ok: result, expiresAt: now() + tagTtlMs }, max);
    return copy(result);
  }

  return { imageMetadata };
}
