/**
 * Platform selection in an image index (pure): which manifest of a multi-arch image the
 * cluster would run, ignoring BuildKit attestation entries (`unknown/unknown`).
 */

/** A platform as OCI indexes describe it. */
export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

/** One entry of an OCI image index / Docker manifest list (only the fields we read). */
export interface IndexEntry {
  mediaType?: string;
  digest: string;
  size?: number;
  platform?: { os?: string; architecture?: string; variant?: string };
  annotations?: Record<string, string>;
}

/** The platform chosen when the caller names none. */
export const DEFAULT_PLATFORM: Platform = Object.freeze({ os: 'linux', architecture: 'amd64' });

const ARCH_ALIASES: Record<string, string> = { x86_64: 'amd64', 'x86-64': 'amd64', aarch64: 'arm64', armhf: 'arm', armel: 'arm' };
const DEFAULT_VARIANT: Record<string, string> = { amd64: 'v1', arm64: 'v8', arm: 'v7' };

/** Parses `os/arch[/variant]`, e.g. `linux/arm64/v8`. */
export function parsePlatform(text: string): Platform {
  const [os, architecture, variant, extra] = text.trim().split('/');
  if (!os || !architecture || extra !== undefined || variant === '') {
    throw new Error(`invalid platform "${text}": expected os/arch[/variant], e.g. linux/arm64/v8`);
  }
  return variant === undefined ? { os, architecture } : { os, architecture, variant };
}

function normalArch(arch: string): string {
  const lower = arch.toLowerCase();
  return ARCH_ALIASES[lower] ?? lower;
}

function normalVariant(arch: string, variant: string | undefined): string {
  const v = variant?.toLowerCase() ?? '';
  if (v !== '') return arch === 'arm64' && v === '8' ? 'v8' : v;
  return DEFAULT_VARIANT[arch] ?? '';
}

/** True for BuildKit attestation manifests and other entries that are no runnable image. */
export function isAttestation(entry: IndexEntry): boolean {
  if (entry.annotations?.['vnd.docker.reference.type'] === 'attestation-manifest') return true;
  return entry.platform?.os === 'unknown' && entry.platform.architecture === 'unknown';
}

function matches(entry: IndexEntry, wanted: Platform): boolean {
  const p = entry.platform;
  if (p?.os === undefined || p.architecture === undefined) return false;
  if (p.os.toLowerCase() !== wanted.os.toLowerCase()) return false;
  const arch = normalArch(p.architecture);
  const wantedArch = normalArch(wanted.architecture);
  return arch === wantedArch && normalVariant(arch, p.variant) === normalVariant(wantedArch, wanted.variant);
}

/**
 * The entry for `wanted` (variant defaults: amd64 v1, arm64 v8, arm v7); when the index has no
 * such platform, the first runnable entry (labels of sibling platforms are built from the same
 * source). Undefined only when the index holds nothing but attestations.
 */
export function selectManifest(entries: readonly IndexEntry[], wanted: Platform = DEFAULT_PLATFORM): IndexEntry | undefined {
  const runnable = entries.filter((e) => !isAttestation(e));
  return runnable.find((e) => matches(e, wanted)) ?? runnable[0];
}

/** `os/arch[/variant]` text for messages. */
export function formatPlatform(p: Platform): string {
  return p.variant ? `${p.os}/${p.architecture}/${p.variant}` : `${p.os}/${p.architecture}`;
}
