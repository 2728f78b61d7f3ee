/**
 * Pushes real images to a registry over the distribution HTTP API (monolithic blob uploads,
 * then manifests), so tests read content the registry itself validated and stored.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** Budget of one push request. */
const PUSH_TIMEOUT_MS = 10_000;

/** Basic credentials for an htpasswd registry, or a token (with push scope) for a token registry. */
export type PushAuth = { username: string; password: string } | { bearer: string };

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { os: string; architecture: string; variant?: string };
  annotations?: Record<string, string>;
}

/** One platform of an image: labels go into the config blob's `config.Labels`. */
export interface PlatformSpec {
  os?: string;
  architecture?: string;
  variant?: string;
  labels?: Record<string, string>;
}

const sha256 = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function headers(auth: PushAuth | undefined, extra: Record<string, string>): Record<string, string> {
  if (!auth) return extra;
  if ('bearer' in auth) return { ...extra, authorization: `Bearer ${auth.bearer}` };
  return { ...extra, authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
}

async function expectStatus(res: Response, status: number, what: string): Promise<void> {
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}

/** Uploads `content` as a blob (POST upload, PUT ?digest=) and returns its descriptor. */
export async function pushBlob(
  registryUrl: string,
  repo: string,
  content: Uint8Array,
  mediaType: string,
  auth?: PushAuth,
): Promise<Descriptor> {
  const digest = sha256(content);
  const start = await fetch(`${registryUrl}/v2/${repo}/blobs/uploads/`, {
    method: 'POST',
    headers: headers(auth, {}),
    signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
  });
  const location = start.headers.get('location');
  await expectStatus(start, 202, `start upload to ${repo}`);
  if (location === null) throw new Error(`start upload to ${repo}: no Location`);
  const url = new URL(location, registryUrl);
  url.searchParams.set('digest', digest);
  const put = await fetch(url, {
    method: 'PUT',
    headers: headers(auth, { 'content-type': 'application/octet-stream', 'content-length': String(content.byteLength) }),
    body: content,
    signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
  });
  await expectStatus(put, 201, `upload blob ${digest} to ${repo}`);
  return { mediaType, digest, size: content.byteLength };
}

/** PUTs a manifest under `reference` (tag or digest); returns its descriptor. */
export async function pushManifest(
  registryUrl: string,
  repo: string,
  reference: string,
  manifest: object,
  auth?: PushAuth,
): Promise<Descriptor> {
  const mediaType = (manifest as { mediaType?: string }).mediaType ?? 'application/vnd.oci.image.manifest.v1+json';
  const body = Buffer.from(JSON.stringify(manifest));
  const res = await fetch(`${registryUrl}/v2/${repo}/manifests/${reference}`, {
    method: 'PUT',
    headers: headers(auth, { 'content-type': mediaType }),
    body,
    signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
  });
  const returned = res.headers.get('docker-content-digest');
  await expectStatus(res, 201, `put manifest ${repo}:${reference}`);
  const digest = sha256(body);
  if (returned !== digest) throw new Error(`registry digest ${returned} differs from ${digest}`);
  return { mediaType, digest, size: body.byteLength };
}

/** A one-file ustar archive (uncompressed). */
function tarOf(name: string, content: Uint8Array): Buffer {
  const header = Buffer.alloc(512);
  const field = (text: string, offset: number): void => void header.write(text, offset, 'ascii');
  field(name, 0);
  field('0000644\0', 100);
  field('0000000\0', 108);
  field('0000000\0', 116);
  field(`${content.byteLength.toString(8).padStart(11, '0')}\0`, 124);
  field('00000000000\0', 136);
  field('        ', 148);
  field('0', 156);
  field('ustar\0', 257);
  field('00', 263);
  const sum = header.reduce((a, b) => a + b, 0);
  field(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padding = Buffer.alloc((512 - (content.byteLength % 512)) % 512);
  return Buffer.concat([header, content, padding, Buffer.alloc(1024)]);
}

type Format = 'docker' | 'oci';
const TYPES = {
  docker: {
    manifest: 'application/vnd.docker.distribution.manifest.v2+json',
    config: 'application/vnd.docker.container.image.v1+json',
    layer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  },
  oci: {
    manifest: 'application/vnd.oci.image.manifest.v1+json',
    config: 'application/vnd.oci.image.config.v1+json',
    layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
  },
} as const;

/** Pushes layer, config and manifest; the manifest goes under `reference`, or its own digest when undefined. */
async function pushPlatformImage(
  registryUrl: string,
  repo: string,
  reference: string | undefined,
  spec: PlatformSpec,
  format: Format,
  auth?: PushAuth,
): Promise<Descriptor> {
  const os = spec.os ?? 'linux';
  const architecture = spec.architecture ?? 'amd64';
  const tar = tarOf('hello.txt', Buffer.from(`${repo}:${reference ?? ''} ${os}/${architecture}/${spec.variant ?? ''}\n`));
  const layer = await pushBlob(registryUrl, repo, gzipSync(tar), TYPES[format].layer, auth);
  const config = {
    architecture,
    os,
    ...(spec.variant ? { variant: spec.variant } : {}),
    created: '2025-01-01T00:00:00Z',
    config: { Labels: spec.labels ?? null },
    rootfs: { type: 'layers', diff_ids: [sha256(tar)] },
  };
  const configDesc = await pushBlob(registryUrl, repo, Buffer.from(JSON.stringify(config)), TYPES[format].config, auth);
  const manifest = { schemaVersion: 2, mediaType: TYPES[format].manifest, config: configDesc, layers: [layer] };
  return pushManifest(registryUrl, repo, reference ?? sha256(Buffer.from(JSON.stringify(manifest))), manifest, auth);
}

/** Pushes a single-platform Docker v2 image tagged `tag`; returns the manifest digest. */
export async function pushImage(
  registryUrl: string,
  repo: string,
  tag: string,
  spec: PlatformSpec & { auth?: PushAuth } = {},
): Promise<string> {
  return (await pushPlatformImage(registryUrl, repo, tag, spec, 'docker', spec.auth)).digest;
}

/** A BuildKit-style attestation manifest for `subject` (in-toto layer). */
async function pushAttestation(registryUrl: string, repo: string, subject: string, auth?: PushAuth): Promise<Descriptor> {
  const statement = Buffer.from(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v0.1',
      predicateType: 'https://slsa.dev/provenance/v0.2',
      subject: [{ digest: { sha256: subject.slice(7) } }],
    }),
  );
  const layer = await pushBlob(registryUrl, repo, statement, 'application/vnd.in-toto+json', auth);
  const config = await pushBlob(
    registryUrl,
    repo,
    Buffer.from('{"architecture":"unknown","os":"unknown","config":{},"rootfs":{"type":"layers","diff_ids":[]}}'),
    TYPES.oci.config,
    auth,
  );
  const manifest = {
    schemaVersion: 2,
    mediaType: TYPES.oci.manifest,
    config,
    layers: [{ ...layer, annotations: { 'in-toto.io/predicate-type': 'https://slsa.dev/provenance/v0.2' } }],
  };
  const desc = await pushManifest(registryUrl, repo, sha256(Buffer.from(JSON.stringify(manifest))), manifest, auth);
  return {
    ...desc,
    platform: { os: 'unknown', architecture: 'unknown' },
    annotations: { 'vnd.docker.reference.digest': subject, 'vnd.docker.reference.type': 'attestation-manifest' },
  };
}

export interface PushedIndex {
  /** Digest of the index. */
  digest: string;
  /** Platform (`os/arch[/variant]`) → digest of its manifest. */
  platforms: Record<string, string>;
  /** Digests of the attestation manifests, in index order. */
  attestations: string[];
}

/** Pushes an OCI image index with one OCI manifest per platform (+ attestations, as buildx does). */
export async function pushIndex(
  registryUrl: string,
  repo: string,
  tag: string,
  platforms: PlatformSpec[],
  options: { attestation?: boolean; auth?: PushAuth } = {},
): Promise<PushedIndex> {
  const images: Descriptor[] = [];
  const result: PushedIndex = { digest: '', platforms: {}, attestations: [] };
  for (const spec of platforms) {
    const platform = {
      os: spec.os ?? 'linux',
      architecture: spec.architecture ?? 'amd64',
      ...(spec.variant ? { variant: spec.variant } : {}),
    };
    const desc = await pushPlatformImage(registryUrl, repo, undefined, spec, 'oci', options.auth);
    images.push({ ...desc, platform });
    result.platforms[[platform.os, platform.architecture, platform.variant].filter(Boolean).join('/')] = desc.digest;
  }
  const attestations: Descriptor[] = [];
  if (options.attestation) {
    for (const image of images) attestations.push(await pushAttestation(registryUrl, repo, image.digest, options.auth));
  }
  result.attestations = attestations.map((a) => a.digest);
  const index = { schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [...images, ...attestations] };
  result.digest = (await pushManifest(registryUrl, repo, tag, index, options.auth)).digest;
  return result;
}
