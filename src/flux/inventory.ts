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
  const inventory = status?.inventory;
  const entries: unknown[] = isRecord(inventory) && Array.isArray(inventory.entries) ? inventory.entries : [];
  const seen = new Set<string>();
  const out: WorkloadRef[] = [];
  for (const entry of entries) {
    const id = isRecord(entry) ? entry.id : undefined;
    if (typeof id !== 'string') continue;
    const ref = parseInventoryId(id);
    if (!ref || ref.group !== 'apps' || !ref.namespace || !WORKLOAD_KINDS.has(ref.kind)) continue;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(ref as WorkloadRef);
  }
  return out;
}
