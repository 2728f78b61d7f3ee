/** What the registry tells about one image: the manifest digest it resolved to and its config labels. */
export interface ImageMetadata {
  /** Digest of the image manifest (for an index: of the platform manifest chosen), `sha256:…`. */
  digest: string;
  /** `config.Labels` of the image config blob; empty object when the image has none. */
  labels: Record<string, string>;
}

/** Reads OCI labels of an image reference as written in a pod template. */
export interface LabelSource {
  /** Resolves `image` (any form Kubernetes accepts) to its labels; throws RegistryError on failure. */
  imageMetadata(image: string, signal?: AbortSignal): Promise<ImageMetadata>;
}
