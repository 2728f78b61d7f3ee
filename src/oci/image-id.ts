/**
 * `status.containerStatuses[].imageID` parsing (pure): the digest of the image a container
 * actually runs, as container runtimes report it.
 */
import { parseImageReference } from './reference.js';

/** What a pod says it runs. */
export interface RunningImage {
  /** `sha256:…`: a repository digest, or (bare form) the local image ID. */
  digest: string;
  /** Registry and repository the digest belongs to, when the runtime named them. */
  registry?: string;
  repository?: string;
}

const RUNTIME_PREFIXES = ['docker-pullable://', 'docker://', 'containerd://', 'cri-o://'];
const BARE_DIGEST = /^sha256:[a-f0-9]{64}$/;

/**
 * Parses `docker-pullable://host/repo@sha256:…`, `host/repo@sha256:…` (containerd, CRI-O) or a bare
 * `sha256:…` image ID (`docker://sha256:…`); undefined for '' (not started yet) or anything else.
 */
export function parseImageId(imageID: string | undefined): RunningImage | undefined {
  let text = (imageID ?? '').trim();
  for (const prefix of RUNTIME_PREFIXES) {
    if (text.startsWith(prefix)) text = text.slice(prefix.length);
  }
  if (BARE_DIGEST.test(text)) return { digest: text };
  if (!text.includes('@')) return undefined;
  try {
    const ref = parseImageReference(text);
    if (ref.digest === undefined) return undefined;
    return { digest: ref.digest, registry: ref.registry, repository: ref.repository };
  } catch {
    return undefined;
  }
}
