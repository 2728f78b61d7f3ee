import { isRecord } from '../common/json.js';

/** One object from a Flux `.status.inventory.entries[].id`: `<namespace>_<name>_<group>_<Kind>`. */
export interface InventoryRef {
  namespace: string;
  name: string;
  group: string;
  kind: string;
}

/** Kinds the bridge reports on directly, and ReplicaSet which resolves to its owning Deployment. */
export type WorkloadRef = InventoryRef & { kind: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'ReplicaSet' };

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

/** Parses one inventory id; undefined when it does not have the four `_`-separated parts. */
export function parseInventoryId(id: string): InventoryRef | undefined {
  const parts = id.split('_');
  if (parts.length !== 4) return undefined;
  const [namespace, name, group, kind] = parts as [string, string, string, string];
  if (!name || !kind) return undefined;
  return { namespace, name, group, kind };
}

/**
 * The workloads named by a Flux object's inventory: apps/v1 Deployments, StatefulSets, DaemonSets and
 * ReplicaSets, deduplicated, in inventory order. Jobs, CronJobs, cluster-scoped and other kinds are ignored;
 * a missing inventory (HelmRelease before Flux 2.8) yields nothing.
 */
export function workloadsFromInventory(status: Record<string, unknown> | undefined): WorkloadRef[] {
  const seen = new Set<string>();
  const out: WorkloadRef[] = [];
  for (const id of inventoryIds(status)) {
    const ref = parseInventoryId(id);
    if (!ref || ref.group !== 'apps' || !ref.namespace || !WORKLOAD_KINDS.has(ref.kind)) continue;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(ref as WorkloadRef);
  }
  return out;
}

/**
 * Why a Flux object has no `.status.inventory` to walk, or undefined when it has one (even empty): a
 * HelmRelease gets one from helm-controller 1.5 (Flux 2.8) on, a Kustomization after its first apply.
 */
export function missingInventory(kind: string, status: Record<string, unknown> | undefined): string | undefined {
  if (isRecord(status?.inventory)) return undefined;
  return kind === 'HelmRelease'
    ? 'HelmRelease has no .status.inventory: helm-controller records it from v1.5 (Flux 2.8) on; upgrade Flux to report this release'
    : `${kind} has no .status.inventory yet: nothing applied`;
}

/** Kinds that route traffic to a workload, and the Services between them: read to discover a preview's URL. */
export type RoutingRef = InventoryRef & { kind: 'Ingress' | 'HTTPRoute' | 'Service' };

const ROUTING_GROUPS: Record<RoutingRef['kind'], string> = {
  Ingress: 'networking.k8s.io',
  HTTPRoute: 'gateway.networking.k8s.io',
  Service: '',
};

const isRoutingKind = (kind: string): kind is RoutingRef['kind'] => Object.hasOwn(ROUTING_GROUPS, kind);

/**
 * The routing objects named by a Flux object's inventory: networking.k8s.io Ingresses, Gateway API
 * HTTPRoutes and core Services, deduplicated, in inventory order (other groups of the same kind name are ignored).
 */
export function routingFromInventory(status: Record<string, unknown> | undefined): RoutingRef[] {
  const out: RoutingRef[] = [];
  const seen = new Set<string>();
  for (const id of inventoryIds(status)) {
    const ref = parseInventoryId(id);
    if (!ref?.namespace || !isRoutingKind(ref.kind) || ROUTING_GROUPS[ref.kind] !== ref.group || seen.has(id)) continue;
    seen.add(id);
    out.push(ref as RoutingRef);
  }
  return out;
}

/** The `id` strings of `.status.inventory.entries`. */
function inventoryIds(status: Record<string, unknown> | undefined): string[] {
  const inventory = status?.inventory;
  const entries: unknown[] = isRecord(inventory) && Array.isArray(inventory.entries) ? inventory.entries : [];
  return entries.map((e) => (isRecord(e) ? e.id : undefined)).filter((id): id is string => typeof id === 'string');
}
