/**
 * A spoke's kubeconfig, from a Flux object's Secret or from CLUSTER_KUBECONFIG_DIR, is someone else's file:
 * only a self-contained one is accepted (a server, the CA's data, and a token or a client certificate's data),
 * read into plain values. Everything that would run a program (`exec`, `auth-provider`) or read a file of this
 * machine (`tokenFile`, `client-certificate`, `client-key`, `certificate-authority` paths) is refused with its
 * reason, so no local credential or file ever reaches a spoke's server. Pure (the YAML parser is client-node's).
 */
import { requireFromClientNode } from './kube-config.js';

const yaml = requireFromClientNode('js-yaml') as { load(text: string): unknown };

/** What requests to a spoke carry: all of it from the kubeconfig's own text. */
export interface SpokeCredentials {
  server: string;
  /** PEM of the CA that signs the server's certificate (unset only with insecureSkipTlsVerify). */
  caData?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  token?: string;
  /** PEM client certificate and key (both or neither). */
  certData?: string;
  keyData?: string;
}

export type SpokeKubeconfig = { credentials: SpokeCredentials } | { refused: string };

/** Longest kubeconfig read (a Secret is at most 1 MiB). */
export const MAX_KUBECONFIG_CHARS = 1024 * 1024;

/** Cluster fields understood; others are refused by name. `extensions` carry nothing used. */
const CLUSTER_FIELDS = new Set(['server', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name', 'extensions']);
const USER_FIELDS = new Set(['token', 'client-certificate-data', 'client-key-data', 'extensions']);
/** Fields refused with a reason of their own. */
const REFUSED: Record<string, string> = {
  exec: 'runs a program (exec) to get credentials',
  'auth-provider': 'uses an auth-provider plugin',
  tokenFile: 'reads a token from a file (tokenFile)',
  'token-file': 'reads a token from a file (token-file)',
  'client-certificate': 'reads the client certificate from a file (client-certificate)',
  'client-key': 'reads the client key from a file (client-key)',
  'certificate-authority': 'reads the CA from a file (certificate-authority)',
  username: 'uses basic auth (username/password)',
  password: 'uses basic auth (username/password)',
  'proxy-url': 'sends requests through a proxy (proxy-url)',
  as: 'impersonates (as)',
  'as-groups': 'impersonates (as-groups)',
  'as-uid': 'impersonates (as-uid)',
  'as-user-extra': 'impersonates (as-user-extra)',
};

const rec = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The entry of `list` named `name` (`clusters`, `users`, `contexts`: `{ name, <field>: {...} }`). */
function named(doc: Record<string, unknown>, list: string, field: string, name: string | undefined): Record<string, unknown> | undefined {
  const items = doc[list];
  if (!Array.isArray(items) || name === undefined) return undefined;
  const hit = items.map(rec).find((i) => i?.name === name);
  return rec(hit?.[field]);
}

/** Why the fields of a cluster or user are refused, or undefined. */
function refusedFields(what: string, fields: Record<string, unknown>, allowed: Set<string>): string | undefined {
  for (const k of Object.keys(fields)) {
    if (fields[k] === undefined || fields[k] === null || fields[k] === '') continue;
    if (REFUSED[k]) return `its ${what} ${REFUSED[k]}`;
    if (!allowed.has(k)) return `its ${what} has the field ${k}, which a self-contained kubeconfig does not need`;
  }
  return undefined;
}

/** base64 data as text (PEM), or undefined when it does not decode to one. */
function pem(data: string | undefined): string | undefined {
  if (data === undefined) return undefined;
  const text = Buffer.from(data, 'base64').toString('utf8');
  return text.includes('-----BEGIN ') ? text : undefined;
}

/** Reads and checks a kubeconfig's current context: its credentials, or why it is refused. */
export function checkSpokeKubeconfig(text: string): SpokeKubeconfig {
  if (text.length > MAX_KUBECONFIG_CHARS) return { refused: `the kubeconfig is longer than ${MAX_KUBECONFIG_CHARS} characters` };
  let doc: Record<string, unknown> | undefined;
  try {
    doc = rec(yaml.load(text));
  } catch {
    return { refused: 'the kubeconfig is not valid YAML' };
  }
  if (!doc) return { refused: 'the kubeconfig is not a YAML mapping' };
  const contexts = Array.isArray(doc.contexts) ? doc.contexts : [];
  const currentName = str(doc['current-context']) ?? (contexts.length === 1 ? str(rec(contexts[0])?.name) : undefined);
  if (currentName === undefined) return { refused: 'the kubeconfig has no current-context' };
  const context = named(doc, 'contexts', 'context', currentName);
  if (!context) return { refused: `the kubeconfig has no context ${JSON.stringify(currentName)}` };
  const cluster = named(doc, 'clusters', 'cluster', str(context.cluster));
  if (!cluster) return { refused: `the kubeconfig's current context names no cluster it has` };
  const user = named(doc, 'users', 'user', str(context.user)) ?? {};
  const why = refusedFields('cluster', cluster, CLUSTER_FIELDS) ?? refusedFields('user', user, USER_FIELDS);
  if (why) return { refused: `not a self-contained kubeconfig: ${why}` };

  const server = str(cluster.server);
  let url: URL;
  try {
    url = new URL(server ?? '');
  } catch {
    return { refused: 'the kubeconfig names no valid server URL' };
  }
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && insecure))
    return { refused: `the server ${url.origin} is not https (plain http needs insecure-skip-tls-verify: true)` };
  const caData = pem(str(cluster['certificate-authority-data']));
  if (str(cluster['certificate-authority-data']) !== undefined && caData === undefined)
    return { refused: 'certificate-authority-data is not a base64 PEM certificate' };
  if (caData === undefined && !insecure) return { refused: 'the kubeconfig has no certificate-authority-data to verify the server with' };
  const token = str(user.token);
  const certData = pem(str(user['client-certificate-data']));
  const keyData = pem(str(user['client-key-data']));
  if ((certData === undefined) !== (keyData === undefined))
    return { refused: 'client-certificate-data and client-key-data must both be base64 PEM, or both absent' };
  if (token === undefined && certData === undefined)
    return { refused: 'the kubeconfig has no credentials: a token, or client-certificate-data and client-key-data' };
  const tlsServerName = str(cluster['tls-server-name']);
  return {
    credentials: {
      server: url.origin + url.pathname.replace(/\/+$/, ''),
      ...(caData ? { caData } : {}),
      insecureSkipTlsVerify: insecure,
      ...(tlsServerName ? { tlsServerName } : {}),
      ...(token ? { token } : {}),
      ...(certData && keyData ? { certData, keyData } : {}),
    },
  };
}
