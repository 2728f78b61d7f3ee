/**
 * Flux remote clusters: a Kustomization or HelmRelease with `.spec.kubeConfig` applies to another ("spoke")
 * cluster. What the Flux object says about it — where its credentials are, which cluster it is, and the
 * defaults its annotations give its workloads — read here without any request. Pure.
 */
import type { K8sObject } from './k8s-objects.js';

/** The annotation prefix the bridge reads (metadata/resolve-target.ts has the same). */
const PREFIX = 'github-deployment-bridge.io/';
/** A Flux object's annotation naming the cluster of its workloads. */
export const CLUSTER_ANNOTATION = `${PREFIX}cluster`;
/** The suffix Cluster API gives a cluster's kubeconfig Secret (`<cluster>-kubeconfig`). */
const CAPI_SUFFIX = '-kubeconfig';
/** The annotations of a Flux object that are defaults of its workloads' own (a workload's annotation still wins). */
export const FLUX_DEFAULT_KEYS = ['cluster', 'environment', 'production', 'transient'] as const;
/** Longest name accepted from an annotation or a Secret (a DNS label is 63, a Secret name 253). */
const MAX_CLUSTER_NAME = 253;

/** Where a remote Flux object's credentials are: `spec.kubeConfig.secretRef` or `.configMapRef`, or why it cannot be used. */
export type KubeConfigRef =
  { kind: 'secret'; name: string; key: string | undefined } | { kind: 'configMap'; name: string } | { kind: 'invalid'; reason: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const rec = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The object's `spec.kubeConfig`, or undefined for a Flux object applying to its own (the hub's) cluster. */
export function kubeConfigRefOf(obj: K8sObject): KubeConfigRef | undefined {
  const kc = obj.spec?.kubeConfig;
  if (kc === undefined || kc === null) return undefined;
  const spec = rec(kc);
  if (!spec) return { kind: 'invalid', reason: 'spec.kubeConfig is not an object' };
  const secret = rec(spec.secretRef);
  const secretName = str(secret?.name);
  if (secretName) return { kind: 'secret', name: secretName, key: str(secret?.key) };
  const configMapName = str(rec(spec.configMapRef)?.name);
  if (configMapName) return { kind: 'configMap', name: configMapName };
  return { kind: 'invalid', reason: 'spec.kubeConfig names neither secretRef.name nor configMapRef.name' };
}

/** A usable cluster name: trimmed, one line, bounded; undefined when blank. */
function cleanName(v: string | undefined): string | undefined {
  const name = v?.trim();
  if (!name || /[\r\n\t]/.test(name)) return undefined;
  return name.length > MAX_CLUSTER_NAME ? name.slice(0, MAX_CLUSTER_NAME) : name;
}

/**
 * The cluster a remote Flux object's workloads run in: its `github-deployment-bridge.io/cluster` annotation;
 * else the Secret's name without a trailing `-kubeconfig` (Cluster API's `<cluster>-kubeconfig`); else the
 * Secret's or ConfigMap's name.
 */
export function remoteClusterName(obj: K8sObject, ref: Exclude<KubeConfigRef, { kind: 'invalid' }>): string {
  const annotated = cleanName(obj.metadata.annotations?.[CLUSTER_ANNOTATION]);
  if (annotated) return annotated;
  if (ref.kind === 'secret' && ref.name.endsWith(CAPI_SUFFIX) && ref.name.length > CAPI_SUFFIX.length)
    return ref.name.slice(0, -CAPI_SUFFIX.length);
  return ref.name;
}

/**
 * The Flux object's annotations that are defaults of its workloads (`cluster`, `environment`, `production`,
 * `transient`, without the prefix): a workload's own annotation wins, CLUSTER_NAME and ENVIRONMENT come last.
 */
export function fluxObjectDefaults(obj: K8sObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of FLUX_DEFAULT_KEYS) {
    const v = cleanName(obj.metadata.annotations?.[`${PREFIX}${key}`]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}
