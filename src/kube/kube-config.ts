/**
 * The kubeconfig, read without @kubernetes/client-node's index or its KubeConfig class: both import every
 * generated API and model of the client (about 55 MiB of resident memory, a third of the idle bridge; see
 * BENCHMARKS.md §5) for the handful of GETs the bridge makes. The lookup and meaning follow client-node 1.x's
 * KubeConfig (loadFromFile, loadFromDefault, loadFromCluster); client-node's own small modules still parse the
 * entries (config_types.js) and authenticate (kube-credentials.ts), and its YAML parser reads the file.
 */
import { accessSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIPv6 } from 'node:net';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { newClusters, newContexts, newUsers, type Cluster, type Context, type User } from '@kubernetes/client-node/dist/config_types.js';

export type { Cluster, User };

/** client-node's own dependencies (js-yaml, the proxy agents), resolved from it so they are the versions it was tested with. */
export const requireFromClientNode = createRequire(import.meta.resolve('@kubernetes/client-node'));
const yaml = requireFromClientNode('js-yaml') as { load(text: string): unknown };

/** Where a pod's service account is mounted. */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The pod's service account token: client-node's sign of running in a cluster. */
export const SERVICE_ACCOUNT_TOKEN_PATH = `${SERVICE_ACCOUNT_DIR}/token`;
const SERVICE_ACCOUNT_CA_PATH = `${SERVICE_ACCOUNT_DIR}/ca.crt`;
/** Ports the in-cluster API server is spoken to over plain http, as client-node decides. */
const PLAIN_HTTP_PORTS = new Set(['80', '8080', '8001']);

/** The entries of one or more kubeconfig files, merged. */
export interface KubeEntries {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string | undefined;
}

const readable = (path: string): boolean => {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
};

/** One kubeconfig file; relative certificate and key paths are taken from the file's directory. */
export function entriesFromFile(file: string): KubeEntries {
  const doc = (yaml.load(readFileSync(file, 'utf8')) ?? {}) as Record<string, unknown>;
  const root = dirname(file);
  const absolute = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : join(root, p));
  const current = doc['current-context'];
  return {
    clusters: newClusters(doc.clusters).map((c) => ({ ...c, caFile: absolute(c.caFile) })),
    users: newUsers(doc.users).map((u) => ({ ...u, certFile: absolute(u.certFile), keyFile: absolute(u.keyFile) })),
    contexts: newContexts(doc.contexts),
    currentContext: typeof current === 'string' ? current : undefined,
  };
}

/** Adds `more` to `into` as client-node's mergeConfig does: a later current-context wins; a repeated name is an error. */
function merge(into: KubeEntries, more: KubeEntries): KubeEntries {
  const add = <T extends { name: string }>(what: string, a: T[], b: T[]): T[] => {
    for (const x of b) if (a.some((y) => y.name === x.name)) throw new Error(`Duplicate ${what}: ${x.name}`);
    return [...a, ...b];
  };
  return {
    clusters: add('cluster', into.clusters, more.clusters),
    users: add('user', into.users, more.users),
    contexts: add('context', into.contexts, more.contexts),
    currentContext: more.currentContext || into.currentContext,
  };
}

/** The pod's service account: KUBERNETES_SERVICE_HOST/PORT, its CA and its token file (re-read as it rotates). */
export function entriesInCluster(env: NodeJS.ProcessEnv): KubeEntries {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  const scheme = PLAIN_HTTP_PORTS.has(port) ? 'http' : 'https';
  const server = `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  return {
    clusters: [{ name: 'inCluster', caFile: SERVICE_ACCOUNT_CA_PATH, server, skipTLSVerify: false }],
    users: [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: SERVICE_ACCOUNT_TOKEN_PATH } } }],
    contexts: [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser' }],
    currentContext: 'inClusterContext',
  };
}

/** The home directory holding `.kube/config`: HOME, or on Windows also USERPROFILE and HOMEDRIVE+HOMEPATH. */
function homeDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env.HOME && readable(env.HOME) ? env.HOME : undefined;
  const drive = env.HOMEDRIVE && env.HOMEPATH ? join(env.HOMEDRIVE, env.HOMEPATH) : undefined;
  const dirs = [env.HOME, env.USERPROFILE, drive].filter((d): d is string => !!d);
  return dirs.find((d) => readable(join(d, '.kube', 'config'))) ?? dirs[0];
}

/**
 * The default lookup: every file of KUBECONFIG (merged), else ~/.kube/config, else the pod's service
 * account. Throws when none is found (client-node would fall back to http://localhost:8080).
 */
export function defaultEntries(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): KubeEntries {
  const [first, ...more] = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (first !== undefined) return more.reduce((all, f) => merge(all, entriesFromFile(f)), entriesFromFile(first));
  const home = homeDir(env, platform);
  const config = home === undefined ? undefined : join(home, '.kube', 'config');
  if (config !== undefined && readable(config)) return entriesFromFile(config);
  if (readable(SERVICE_ACCOUNT_TOKEN_PATH)) return entriesInCluster(env);
  throw new Error('no kubeconfig found and not running in a cluster');
}

/** The current context's cluster and user (either undefined when the context names none that exists). */
export function currentOf(e: KubeEntries): { cluster: Cluster | undefined; user: User | undefined } {
  const context = e.contexts.find((c) => c.name === e.currentContext);
  return {
    cluster: context && e.clusters.find((c) => c.name === context.cluster),
    user: context && e.users.find((u) => u.name === context.user),
  };
}
