/**
 * Manifest and config-blob decoding (pure): tells an index from an image manifest across the
 * OCI and Docker v2 media types, rejects schema1, and extracts `config.Labels`.
 */
import { RegistryError } from '../common/errors.js';
import { isRecord } from '../common/json.js';
import type { IndexEntry } from './platform.js';
import { MAX_VALUE_CHARS, boundedValue } from '../common/text.js';

/** Media types the client understands. */
export const MediaType = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
} as const;

/** `Accept` header for manifest requests: all four manifest media types. */
export const MANIFEST_ACCEPT = [MediaType.ociIndex, MediaType.ociManifest, MediaType.dockerList, MediaType.dockerManifest].join(', ');

const INDEX_TYPES = new Set<string>([MediaType.ociIndex, MediaType.dockerList]);
const IMAGE_TYPES = new Set<string>([MediaType.ociManifest, MediaType.dockerManifest]);
const CONFIG_TYPES = new Set<string>([MediaType.ociConfig, MediaType.dockerConfig]);
const SCHEMA1_TYPES = new Set([
  'application/vnd.docker.distribution.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v1+prettyjws',
]);

/** A decoded manifest: either a list of platform entries or one image with its config blob. */
export type ParsedManifest = { kind: 'index'; manifests: IndexEntry[] } | { kind: 'image'; config: { digest: string; mediaType: string } };

function invalid(message: string, cause?: unknown): RegistryError {
  return new RegistryError('invalid', message, cause === undefined ? undefined : { cause });
}

function parseJson(body: Uint8Array, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch (err) {
    throw invalid(`${what} is not valid JSON`, err);
  }
  if (!isRecord(value)) throw invalid(`${what} is not a JSON object`);
  return value;
}

/** Media type without parameters, lowercased; '' when absent. */
function bareType(value: string | null | undefined): string {
  const [bare = ''] = (value ?? '').split(';');
  return bare.trim().toLowerCase();
}

/**
 * Decodes a manifest body. The media type comes from the body when it names one, else from
 * the `Content-Type` header, else from the shape (`manifests` → index, `config` → image).
 */
export function parseManifest(body: Uint8Array, contentType: string | null, what: string): ParsedManifest {
  const header = bareType(contentType);
  if (SCHEMA1_TYPES.has(header)) throw schema1(what);
  const doc = parseJson(body, what);
  if (doc.schemaVersion === 1) throw schema1(what);
  const declared = typeof doc.mediaType === 'string' ? bareType(doc.mediaType) : '';
  let type = declared || (INDEX_TYPES.has(header) || IMAGE_TYPES.has(header) ? header : '');
  if (type === '') type = Array.isArray(doc.manifests) ? MediaType.ociIndex : isRecord(doc.config) ? MediaType.ociManifest : '';
  if (SCHEMA1_TYPES.has(type)) throw schema1(what);
  if (INDEX_TYPES.has(type)) {
    if (!Array.isArray(doc.manifests)) throw invalid(`${what}: index without "manifests"`);
    const manifests = doc.manifests.filter((m): m is IndexEntry => isRecord(m) && typeof m.digest === 'string');
    return { kind: 'index', manifests };
  }
  if (IMAGE_TYPES.has(type)) {
    const config = doc.config;
    if (!isRecord(config) || typeof config.digest !== 'string') throw invalid(`${what}: manifest without a config descriptor`);
    const mediaType = typeof config.mediaType === 'string' ? bareType(config.mediaType) : '';
    if (!CONFIG_TYPES.has(mediaType)) {
      throw invalid(`${what} is not a container image (config media type "${mediaType || 'none'}")`);
    }
    return { kind: 'image', config: { digest: config.digest, mediaType } };
  }
  throw invalid(`${what} has unsupported media type "${type || header || 'none'}"`);
}

function schema1(what: string): RegistryError {
  return invalid(`${what} is a Docker schema1 manifest, which is not supported: push the image again with a current Docker/BuildKit`);
}

/** Labels kept of one image (the OCI annotation keys first); the cache stores them. */
const MAX_LABELS = 256;

/**
 * `config.Labels` of an image config blob, keeping string values only (each bounded, see
 * boundedValue; keys as long as a value at most); `{}` when null or absent.
 */
export function parseConfigLabels(body: Uint8Array, what: string): Record<string, string> {
  const doc = parseJson(body, what);
  const labels = isRecord(doc.config) ? doc.config.Labels : undefined;
  const out: Record<string, string> = {};
  if (!isRecord(labels)) return out;
  const entries = Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0].length <= MAX_VALUE_CHARS);
  const oci = (key: string) => (key.startsWith('org.opencontainers.image.') ? 0 : 1);
  entries.sort((x, y) => oci(x[0]) - oci(y[0]));
  for (const [key, value] of entries.slice(0, MAX_LABELS)) out[key] = boundedValue(value);
  return out;
}
