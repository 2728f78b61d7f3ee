/**
 * The Kubernetes adapter: the few reads of KubeReader as plain GETs (kube-request.ts) with the kubeconfig's
 * credentials (kube-config.ts, kube-credentials.ts), not through @kubernetes/client-node's generated API,
 * whose import alone costs about 55 MiB of resident memory. Flux objects, apps/v1 workloads and routes are read
 * as JSON by their REST paths; the core/v1 reads for image credentials and running digests are in core-reads.ts.
 * Every request carries its own timeout signal and goes over a kept keep-alive connection; failures become KubeError.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KubeError, errorMessage } from '../common/errors.js';
import { keepAliveAgents } from './keep-alive-agent.js';
import { coreReads, listServices, readService } from './core-reads.js';
import { SERVICE_ACCOUNT_TOKEN_PATH, defaultEntries, entriesFromFile, entriesInCluster, type KubeEntries } from './kube-config.js';
import { ClusterAccess } from './kube-credentials.js';
import { MAX_LIST_PAGE_CHARS, kubeGet, kubeGetJson, type KubeGetJson } from './kube-request.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { FluxKind, K8sObject, KubeReader, RoutingKind, WorkloadKind } from './kube-types.js';

export { SERVICE_ACCOUNT_TOKEN_PATH };

/** Per-request timeout when none is configured. */
export const DEFAULT_KUBE_TIMEOUT_MS = 10_000;
/** Objects asked for per list page (the API server's own default page size is unbounded). */
const LIST_PAGE_SIZE = 500;
/** Bound on pages per list (500 × 200 = 100k objects), so a looping continue token cannot spin forever. */
const MAX_LIST_PAGES = 200;

interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

const FLUX_RESOURCES: Record<FluxKind, Resource> = {
  Kustomization: { group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', kind: 'Kustomization' },
  HelmRelease: { group: 'helm.toolkit.fluxcd.io', version: 'v2', plural: 'helmreleases', kind: 'HelmRelease' },
};

const apps = (kind: WorkloadKind, plural: string): Resource => ({ group: 'apps', version: 'v1', plural, kind });
const WORKLOAD_RESOURCES: Record<WorkloadKind, Resource> = {
  Deployment: apps('Deployment', 'deployments'),
  StatefulSet: apps('StatefulSet', 'statefulsets'),
  DaemonSet: apps('DaemonSet', 'daemonsets'),
  ReplicaSet: apps('ReplicaSet', 'replicasets'),
};

/** The REST path of a collection, in a namespace or (namespace undefined) across the cluster. */
function collectionPath(r: Resource, namespace: string | undefined): string {
  return `/apis/${r.group}/${r.version}${namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`}/${r.plural}`;
}

/**
 * The REST path of a namespace's collection of a workload kind, e.g. /apis/apps/v1/namespaces/apps/deployments, or
 * (namespace undefined) the kind's across the cluster, /apis/apps/v1/deployments (for watches).
 */
export function workloadCollectionPath(kind: WorkloadKind, namespace: string | undefined): string {
  return collectionPath(WORKLOAD_RESOURCES[kind], namespace);
}

/** The routing kinds outside the core group (Services are core/v1: core-reads.ts). */
const ROUTE_RESOURCES: Record<Exclude<RoutingKind, 'Service'>, Resource> = {
  Ingress: { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress' },
  HTTPRoute: { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes', kind: 'HTTPRoute' },
};

export interface KubeReaderOptions {
  /** A kubeconfig file; otherwise KUBECONFIG, ~/.kube/config or the in-cluster service account. */
  kubeconfigPath?: string;
  /** Use the pod's service account (KUBERNETES_SERVICE_HOST/PORT and the mounted token). */
  inCluster?: boolean;
  /** Timeout of each HTTP request in milliseconds (default 10 s). */
  timeoutMs?: number;
}

/**
 * Why the default lookup (KUBECONFIG, ~/.kube/config, the pod's service account) would find nothing, or
 * undefined when it finds something. With nothing found client-node falls back to http://localhost:8080, and
 * its complaint would then be about insecure-skip-tls-verify rather than the missing configuration.
 */
export function missingDefaultKubeconfig(env: NodeJS.ProcessEnv, exists: (path: string) => boolean): string | undefined {
  if (env.KUBECONFIG) return undefined;
  const home = env.HOME ? join(env.HOME, '.kube', 'config') : undefined;
  if (home && exists(home)) return undefined;
  const token = exists(SERVICE_ACCOUNT_TOKEN_PATH);
  if (token && env.KUBERNETES_SERVICE_HOST) return undefined;
  const why = env.KUBERNETES_SERVICE_HOST ? `no service account token at ${SERVICE_ACCOUNT_TOKEN_PATH}` : 'KUBERNETES_SERVICE_HOST unset';
  const where = home ?? '~/.kube/config (HOME unset)';
  return `no kubeconfig found at ${where} and not running in a cluster (${why}): set KUBECONFIG or run in a cluster`;
}

/**
 * Loads the client configuration. Throws (a plain Error: a startup problem, not a retryable one)
 * when the file cannot be read, none is found, or it names no usable cluster.
 */
export function loadKubeConfig(opts: Pick<KubeReaderOptions, 'kubeconfigPath' | 'inCluster'>): ClusterAccess {
  const source = opts.inCluster ? 'in-cluster config' : opts.kubeconfigPath ? `kubeconfig ${opts.kubeconfigPath}` : 'default kubeconfig';
  // On Windows the home directory may also be USERPROFILE or HOMEDRIVE+HOMEPATH: left to defaultEntries.
  const checkDefault = !opts.inCluster && !opts.kubeconfigPath && process.platform !== 'win32';
  const missing = checkDefault ? missingDefaultKubeconfig(process.env, existsSync) : undefined;
  if (missing) throw new Error(missing);
  let entries: KubeEntries;
  try {
    if (opts.inCluster) entries = entriesInCluster(process.env);
    else if (opts.kubeconfigPath) entries = entriesFromFile(opts.kubeconfigPath);
    else entries = defaultEntries(process.env);
  } catch (err) {
    throw new Error(`cannot load ${source}: ${errorMessage(err)}`, { cause: err });
  }
  const access = new ClusterAccess(entries);
  const cluster = access.cluster;
  if (!cluster?.server) throw new Error(`${source} names no current cluster with a server`);
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
    // Plain http is refused unless insecure-skip-tls-verify is set (as client-node does); say so now, not per request.
    throw new Error(`${source}: server ${cluster.server} is plain http, which needs insecure-skip-tls-verify: true`);
  }
  return access;
}

function isObjectWithName(v: unknown): v is K8sObject {
  const meta = (v as { metadata?: { name?: unknown } } | null)?.metadata;
  return typeof v === 'object' && v !== null && typeof meta?.name === 'string';
}

/** Creates the production KubeReader. Reads only: the bridge never writes to the cluster. */
export function createKubeReader(opts: KubeReaderOptions = {}): KubeReader {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_KUBE_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`kube timeout must be positive, got ${timeoutMs}`);
  return readerOver(kubeGetJson(kubeGet(loadKubeConfig(opts), keepAliveAgents(timeoutMs)), timeoutMs));
}

/** The KubeReader over one cluster's JSON reads (the hub's, or a spoke's: spoke-request.ts). */
export function readerOver(getJson: KubeGetJson): KubeReader {
  async function getObject(r: Resource, namespace: string, name: string): Promise<K8sObject | null> {
    const what = `GET ${r.plural} ${namespace}/${name}`;
    try {
      const body = await getJson(what, `${collectionPath(r, namespace)}/${encodeURIComponent(name)}`);
      if (!isObjectWithName(body)) throw new KubeError(`Kubernetes API: ${what} returned an unexpected body`);
      return body;
    } catch (err) {
      if (err instanceof KubeError && err.status === 404) return null;
      throw err;
    }
  }

  /** All pages of one list call (namespace undefined = all namespaces). */
  async function listAll(r: Resource, namespace: string | undefined): Promise<K8sObject[]> {
    const what = namespace === undefined ? `LIST ${r.plural} (all namespaces)` : `LIST ${r.plural} in ${namespace}`;
    const out: K8sObject[] = [];
    let cont: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const query = { limit: String(LIST_PAGE_SIZE), continue: cont };
      const body = (await getJson(what, collectionPath(r, namespace), query, MAX_LIST_PAGE_CHARS)) as {
        items?: unknown;
        metadata?: { continue?: string };
      } | null;
      if (!body || !Array.isArray(body.items)) throw new KubeError(`Kubernetes API: ${what} returned an unexpected body`);
      for (const item of body.items) {
        if (!isObjectWithName(item)) continue;
        // A list's items carry no apiVersion/kind; put them back so callers can rely on them.
        out.push({ ...item, apiVersion: item.apiVersion ?? `${r.group}/${r.version}`, kind: item.kind ?? r.kind });
      }
      cont = body.metadata?.continue || undefined;
      if (!cont) return out;
    }
    throw new KubeError(`Kubernetes API: ${what} did not finish within ${MAX_LIST_PAGES} pages`);
  }

  return {
    ...coreReads(getJson),
    getFluxObject: (ref: SourceRef) => getObject(FLUX_RESOURCES[ref.kind], ref.namespace, ref.name),
    getWorkload: (kind: WorkloadKind, namespace: string, name: string) => getObject(WORKLOAD_RESOURCES[kind], namespace, name),
    listWorkloads: (kind: WorkloadKind, namespace: string) => listAll(WORKLOAD_RESOURCES[kind], namespace),
    async getRoutingObject(kind: RoutingKind, namespace: string, name: string) {
      if (kind === 'Service') return readService(getJson, namespace, name);
      const r = ROUTE_RESOURCES[kind];
      const o = await getObject(r, namespace, name);
      return o && { ...o, apiVersion: o.apiVersion ?? `${r.group}/${r.version}`, kind: o.kind ?? r.kind };
    },
    listRoutingObjects: (kind: RoutingKind, namespace: string) =>
      kind === 'Service' ? listServices(getJson, namespace) : listAll(ROUTE_RESOURCES[kind], namespace),
    async listFluxObjects(kind: FluxKind, namespaces: readonly string[]) {
      const r = FLUX_RESOURCES[kind];
      if (namespaces.length === 0) return listAll(r, undefined);
      const out: K8sObject[] = [];
      for (const ns of new Set(namespaces)) out.push(...(await listAll(r, ns)));
      return out;
    },
  };
}
