/**
 * Image reference parsing (pure): every form a pod template may carry, normalised the way
 * Docker and containerd do it (Docker Hub host aliases, implicit `library/`, implicit `latest`).
 */
import { RegistryError } from '../common/errors.js';

/** An image reference split into what the registry API needs. */
export interface ImageReference {
  /** Registry as written, lowercased (`docker.io` for every Docker Hub alias); the credentials key. */
  registry: string;
  /** `host[:port]` the HTTP API lives on (`registry-1.docker.io` for Docker Hub). */
  apiHost: string;
  /** Repository path inside the registry, e.g. `library/nginx`. */
  repository: string;
  /** Tag; `latest` when neither tag nor digest was given. */
  tag?: string;
  /** `algorithm:hex`; when present it wins over the tag. */
  digest?: string;
}

const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const DOCKER_HUB_API_HOST = 'registry-1.docker.io';

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$/;
const IPV6_DOMAIN = /^\[[0-9a-fA-F:.]+\](?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const SHA256_HEX = /^[a-f0-9]{64}$/;
/** Longest reference the distribution grammar allows for a repository name. */
const MAX_NAME_LENGTH = 255;

function invalid(image: string, why: string): RegistryError {
  return new RegistryError('invalid', `invalid image reference "${image}": ${why}`);
}

/** True when the first path component names a registry host rather than a namespace. */
function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost' || component !== component.toLowerCase();
}

/** Parses `image` as Kubernetes accepts it; throws RegistryError('invalid') on anything malformed. */
export function parseImageReference(image: string): ImageReference {
  const text = image.trim();
  if (text === '') throw invalid(image, 'empty');
  let rest = text;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw invalid(image, `malformed digest "${digest}"`);
    if (digest.startsWith('sha256:') && !SHA256_HEX.test(digest.slice(7)))
      throw invalid(image, 'sha256 digest must be 64 lowercase hex characters');
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw invalid(image, `malformed tag "${tag}"`);
  }
  const parts = rest.split('/');
  let registry = DOCKER_HUB;
  const first = parts[0] ?? '';
  if (parts.length > 1 && isRegistryHost(first)) {
    if (!DOMAIN.test(first) && !IPV6_DOMAIN.test(first)) throw invalid(image, `malformed registry host "${first}"`);
    registry = first.toLowerCase();
    parts.shift();
  }
  if (DOCKER_HUB_ALIASES.has(registry)) registry = DOCKER_HUB;
  for (const part of parts) {
    if (!COMPONENT.test(part)) throw invalid(image, `malformed repository component "${part}"`);
  }
  if (registry === DOCKER_HUB && parts.length === 1) parts.unshift('library');
  const repository = parts.join('/');
  if (repository.length > MAX_NAME_LENGTH) throw invalid(image, 'repository name too long');
  const apiHost = registry === DOCKER_HUB ? DOCKER_HUB_API_HOST : registry;
  const ref: ImageReference = { registry, apiHost, repository };
  if (tag !== undefined || digest === undefined) ref.tag = tag ?? 'latest';
  if (digest !== undefined) ref.digest = digest;
  return ref;
}

/** What to put after `/manifests/`: the digest when there is one, else the tag. */
export function manifestReference(ref: ImageReference): string {
  return ref.digest ?? ref.tag ?? 'latest';
}

/** Canonical text of a reference (`docker.io/library/nginx:latest`), for messages and cache keys. */
export function formatReference(ref: ImageReference): string {
  const name = `${ref.registry}/${ref.repository}`;
  return ref.digest !== undefined ? `${name}@${ref.digest}` : `${name}:${ref.tag ?? 'latest'}`;
}
