/**
 * Flux's `generic` workload identity (`spec.kubeConfig.configMapRef`, ConfigMap `provider: generic`): Flux sends a
 * token of a hub ServiceAccount, with the ConfigMap's audiences, to the ConfigMap's `address`, verified with its
 * `ca.crt`; the spoke trusts the hub's service-account issuer. The bridge changes nothing in a cluster (no
 * TokenRequest): it sends its OWN ServiceAccount's token, projected by the kubelet into CLUSTER_TOKEN_DIR (one file
 * per audience), and only the file whose audience is the ConfigMap's. Other providers (aws, azure, gcp) need a
 * cloud's credentials and stay unsupported. The choice is pure; reading the directory is `readTokenDir`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeError, errorMessage } from '../common/errors.js';
import type { KubeReader } from './kube-types.js';
import type { SpokeCredentials } from './spoke-kubeconfig.js';

/** A token file of CLUSTER_TOKEN_DIR. */
export interface TokenFile {
  path: string;
  token: string;
}

/** Longest token file read (a service-account JWT is a few KiB). */
const MAX_TOKEN_CHARS = 64 * 1024;

/** The audiences of a JWT's payload (`aud`: a string or a list), unverified: what it was minted for; [] when not a JWT. */
export function tokenAudiences(token: string): string[] {
  const [, payload, signature] = token.split('.');
  if (payload === undefined || signature === undefined || token.split('.').length !== 3) return [];
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud?: unknown };
    const aud = claims.aud;
    if (typeof aud === 'string') return [aud];
    return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

/** The ConfigMap's audiences (`audiences`, one per line), else its address (Flux's default for `generic`). */
export function configMapAudiences(data: Record<string, string>, address: string): string[] {
  const listed = (data.audiences ?? '')
    .split('\n')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  return listed.length > 0 ? listed : [address];
}

export type GenericIdentity =
  { credentials: SpokeCredentials; tokenFile: string } | { refused: string; failure: 'kubeconfig_refused' | 'no_credentials' };

/**
 * The credentials of a `generic` ConfigMap: its https `address`, its `ca.crt` (else the system's CAs), and the
 * token of `tokens` minted for one of its audiences. Refused with the reason otherwise.
 */
export function genericCredentials(data: Record<string, string>, tokens: TokenFile[]): GenericIdentity {
  const refused = (why: string) => ({ refused: why, failure: 'kubeconfig_refused' as const });
  const raw = (data.address ?? '').trim();
  if (raw === '') return refused('the generic provider needs data.address (the spoke API server)');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refused(`data.address ${JSON.stringify(raw.slice(0, 200))} is not a URL`);
  }
  if (url.protocol !== 'https:') return refused(`data.address ${url.origin} is not https: a token is never sent in clear`);
  const ca = data['ca.crt']?.trim();
  if (ca !== undefined && ca !== '' && !ca.includes('-----BEGIN CERTIFICATE-----'))
    return refused('data["ca.crt"] is not a PEM certificate');
  const server = url.origin + url.pathname.replace(/\/+$/, '');
  const audiences = configMapAudiences(data, raw);
  const match = tokens.find((f) => tokenAudiences(f.token).some((a) => audiences.includes(a)));
  if (!match)
    return {
      failure: 'no_credentials',
      refused: `no token in CLUSTER_TOKEN_DIR has the audience ${audiences.map((a) => JSON.stringify(a)).join(' or ')}: project one for the bridge's ServiceAccount (docs/fleet.md)`,
    };
  return {
    credentials: { server, ...(ca ? { caData: `${ca}\n` } : {}), insecureSkipTlsVerify: false, token: match.token },
    tokenFile: match.path,
  };
}

/** The token files of `dir`, read now (the kubelet rotates them in place), by name; unreadable or oversized ones left out. */
export function readTokenDir(dir: string): TokenFile[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => !n.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
  const out: TokenFile[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const token = readFileSync(path, 'utf8').trim();
      if (token !== '' && token.length <= MAX_TOKEN_CHARS) out.push({ path, token });
    } catch {
      /* a directory or unreadable: not a token */
    }
  }
  return out;
}

/** How a remote Flux object's `configMapRef` is read: the spoke's credentials, or why not (its failure class). */
export type ConfigMapIdentity =
  | { source: string; credentials: SpokeCredentials }
  | { source: string; failure: 'unsupported_provider' | 'no_credentials' | 'kubeconfig_refused'; why: string };

/**
 * Reads the ConfigMap `namespace/name` in the hub (where the bridge may `get` it) and, for `provider: generic`
 * with CLUSTER_TOKEN_DIR set, the credentials of its spoke; every other provider is unsupported, named with the
 * ways out. An error other than a refusal (the hub unreachable) is thrown: the reconcile is retried.
 */
export async function configMapIdentity(
  hub: Pick<KubeReader, 'getConfigMap'>,
  ref: { namespace: string; name: string; cluster: string },
  tokenDir: string | undefined,
): Promise<ConfigMapIdentity> {
  const source = `ConfigMap ${ref.namespace}/${ref.name}`;
  const ways = `put a kubeconfig for ${ref.cluster} in CLUSTER_KUBECONFIG_DIR, or use spec.kubeConfig.secretRef`;
  const unsupported = (provider: string) => ({
    source,
    failure: 'unsupported_provider' as const,
    why: `workload identity (spec.kubeConfig.configMapRef ${ref.name}, provider ${provider}) is not supported: ${ways} (of the providers, only generic is read, with CLUSTER_TOKEN_DIR)`,
  });
  let data: Record<string, string> | null | undefined;
  try {
    data = hub.getConfigMap ? await hub.getConfigMap(ref.namespace, ref.name) : undefined;
  } catch (err) {
    if (!(err instanceof KubeError && (err.status === 403 || err.status === 401))) throw err;
    if (tokenDir === undefined) return unsupported(`unknown: ${errorMessage(err)}`);
    const why = `cannot read ${source} (${errorMessage(err)}): grant get on it (the optional kubeconfig-configmaps component), or ${ways}`;
    return { source, failure: 'no_credentials', why };
  }
  if (data === undefined) return unsupported('unknown');
  if (data === null) return { source, failure: 'no_credentials', why: `${source} not found` };
  const provider = (data.provider ?? '').trim();
  if (provider !== 'generic') return unsupported(JSON.stringify(provider.slice(0, 40)));
  if (tokenDir === undefined) {
    const why = `workload identity (${source}, provider "generic") needs CLUSTER_TOKEN_DIR, a projected token of the bridge's ServiceAccount (docs/fleet.md), or ${ways}`;
    return { source, failure: 'no_credentials', why };
  }
  const id = genericCredentials(data, readTokenDir(tokenDir));
  if ('refused' in id) return { source, failure: id.failure, why: `${source}: ${id.refused}` };
  return { source: `${source} (generic, token ${id.tokenFile})`, credentials: id.credentials };
}
