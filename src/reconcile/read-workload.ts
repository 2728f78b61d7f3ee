import type { WorkloadRef } from '../flux/inventory.js';
import type { K8sObject, KubeReader } from '../kube/kube-types.js';

/** A workload the bridge may report: a Deployment, StatefulSet or DaemonSet as read from the API. */
export interface ReadWorkload {
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet';
  object: K8sObject;
}

export type WorkloadRead = { workload: ReadWorkload } | { missing: string } | { ignored: true };

/**
 * Reads an inventory entry's workload. A ReplicaSet resolves through its controller owner reference
 * to its Deployment; a bare ReplicaSet (no owner) is ignored; a missing object says what is missing.
 */
export async function readWorkload(kube: KubeReader, ref: WorkloadRef): Promise<WorkloadRead> {
  if (ref.kind !== 'ReplicaSet') {
    const object = await kube.getWorkload(ref.kind, ref.namespace, ref.name);
    return object ? { workload: { kind: ref.kind, object } } : { missing: `${ref.kind} ${ref.namespace}/${ref.name} not found` };
  }
  const rs = await kube.getWorkload('ReplicaSet', ref.namespace, ref.name);
  if (!rs) return { missing: `ReplicaSet ${ref.namespace}/${ref.name} not found` };
  const owner = rs.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'Deployment' && o.apiVersion.startsWith('apps/'));
  if (!owner) return { ignored: true };
  const object = await kube.getWorkload('Deployment', ref.namespace, owner.name);
  return object
    ? { workload: { kind: 'Deployment', object } }
    : { missing: `Deployment ${ref.namespace}/${owner.name} (owner of ReplicaSet ${ref.name}) not found` };
}

/** An entry of `spec.containers` with the name and image the bridge needs. */
function isContainer(c: unknown): c is { name: string; image: string } {
  const fields = c as { name?: unknown; image?: unknown } | null | undefined;
  return typeof fields?.name === 'string' && typeof fields.image === 'string';
}

/** The containers of a workload's pod template (init containers never report). */
export function templateContainers(object: K8sObject): Array<{ name: string; image: string }> {
  const podSpec = (object.spec?.template as { spec?: { containers?: unknown } } | undefined)?.spec;
  const list: unknown[] = Array.isArray(podSpec?.containers) ? podSpec.containers : [];
  return list.filter(isContainer).map((c) => ({ name: c.name, image: c.image }));
}

/** The labels of a workload's pod template: what a Service's selector is matched against. */
export function templateLabels(object: K8sObject): Record<string, string> {
  const labels = (object.spec?.template as { metadata?: { labels?: unknown } } | undefined)?.metadata?.labels;
  if (typeof labels !== 'object' || labels === null) return {};
  return Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
