import type { ImageReference } from './reference.js';
import type { Credentials } from './registry-auth.js';

/** What the registry tells about one image: the digest it resolved to and its config labels. */
export interface ImageMetadata {
  /** Digest the reference resolves to, `sha256:…`: of the index for a multi-arch image (what pods report as imageID), else of the image manifest. */
  digest: string;
  /** For an index: the digest of the platform manifest whose labels were read. */
  platformDigest?: string;
  /** `config.Labels` of the image config blob; empty object when the image has none. */
  labels: Record<string, string>;
}

/** The credentials for a repository on a registry (`docker.io` for Docker Hub, else `host[:port]`); undefined → none. */
export type CredentialLookup = (registry: string, repository: string) => Promise<Credentials | undefined> | Credentials | undefined;

/** Per-call options of a look-up. */
export interface LookupOptions {
  /** Called at most once, and only when the registry must be asked; undefined → the client's default credentials. */
  credentials?: CredentialLookup;
  /** The caller's cancellation. */
  signal?: AbortSignal;
}

/** Reads OCI labels of an image reference as written in a pod template. */
export interface LabelSource {
  /** Resolves `image` (any form Kubernetes accepts) to its labels; throws RegistryError on failure. */
  imageMetadata(image: string, options?: LookupOptions): Promise<ImageMetadata>;
}

/** The registry operations a cache needs: one HEAD for a tag, reads by digest. */
export interface RegistryClient extends LabelSource {
  /** `os/arch[/variant]` picked from indexes; part of every cache key of labels. */
  readonly platform: string;
  /** The digest a tag points to now: one HEAD (GET only when the registry sends no digest header). */
  resolveTag(ref: ImageReference, options?: LookupOptions): Promise<string>;
  /** Labels of `ref.digest` (must be set): manifest, platform manifest for an index, config blob. */
  readDigest(ref: ImageReference, options?: LookupOptions): Promise<ImageMetadata>;
}
