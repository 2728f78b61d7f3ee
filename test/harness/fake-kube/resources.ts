/** The resource kinds the fake Kubernetes API server knows, with the REST names the real server uses. */
export interface ResourceType {
  /** API group; '' for the core group served under /api/v1. */
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural used in REST paths and RBAC rules. */
  plural: string;
  namespaced: boolean;
  /** Whether the server maintains metadata.generation (objects with a spec). */
  generation: boolean;
  /**
   * Whether list items carry apiVersion/kind. The real server keeps them on custom resources
   * but strips them from items of built-in typed lists.
   */
  itemsHaveKind: boolean;
}

const custom = (group: string, version: string, kind: string, plural: string): ResourceType => ({
  group,
  version,
  kind,
  plural,
  namespaced: true,
  generation: true,
  itemsHaveKind: true,
});

const builtin = (group: string, kind: string, plural: string, namespaced: boolean, generation: boolean): ResourceType => ({
  group,
  version: 'v1',
  kind,
  plural,
  namespaced,
  generation,
  itemsHaveKind: false,
});

/** Every kind served; anything else answers 404 "the server could not find the requested resource". */
export const RESOURCE_TYPES: readonly ResourceType[] = [
  custom('kustomize.toolkit.fluxcd.io', 'v1', 'Kustomization', 'kustomizations'),
  custom('helm.toolkit.fluxcd.io', 'v2', 'HelmRelease', 'helmreleases'),
  builtin('apps', 'Deployment', 'deployments', true, true),
  builtin('apps', 'ReplicaSet', 'replicasets', true, true),
  builtin('apps', 'StatefulSet', 'statefulsets', true, true),
  builtin('apps', 'DaemonSet', 'daemonsets', true, true),
  builtin('', 'Pod', 'pods', true, false),
  builtin('', 'Namespace', 'namespaces', false, false),
  builtin('', 'Secret', 'secrets', true, false),
  builtin('', 'ServiceAccount', 'serviceaccounts', true, false),
  builtin('', 'ConfigMap', 'configmaps', true, false),
  builtin('', 'Service', 'services', true, false),
  builtin('networking.k8s.io', 'Ingress', 'ingresses', true, true),
  // Gateway API kinds are CRDs: served as unstructured JSON like Flux's.
  custom('gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes'),
];

/** "group/version", or "v1" for the core group. */
export function apiVersionOf(t: ResourceType): string {
  return t.group === '' ? t.version : `${t.group}/${t.version}`;
}

/** The type served at group/version/plural, if any. */
export function typeByPlural(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.plural === plural);
}

/** The type of an object's apiVersion + kind; throws for kinds the fake does not serve. */
export function typeByKind(apiVersion: string, kind: string): ResourceType {
  const t = RESOURCE_TYPES.find((r) => apiVersionOf(r) === apiVersion && r.kind === kind);
  if (!t) throw new Error(`fake-kube: unknown kind ${kind} in ${apiVersion}`);
  return t;
}

/** "deployments.apps", or "pods" for the core group: how the server names a resource in messages. */
export function qualifiedResource(t: { group: string; plural: string }): string {
  return t.group === '' ? t.plural : `${t.plural}.${t.group}`;
}
