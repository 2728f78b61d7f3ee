import type { RoutingRef } from '../flux/inventory.js';
import type { K8sObject, KubeReader } from '../kube/kube-types.js';

/** A source's routing objects, read on first need: a source whose workloads all annotate their URL reads none. */
export interface RoutingObjects {
  read(): Promise<K8sObject[]>;
}

/**
 * The Ingresses, HTTPRoutes and Services an inventory names, read once per reconcile, in inventory
 * order; a missing object (404) or a refused kind (see route-refusals.ts) is simply left out.
 */
export function routingObjects(kube: KubeReader, refs: readonly RoutingRef[]): RoutingObjects {
  let objects: Promise<K8sObject[]> | undefined;
  const readAll = async () => {
    const out: K8sObject[] = [];
    for (const r of refs) {
      const o = await kube.getRoutingObject(r.kind, r.namespace, r.name);
      if (o) out.push(o);
    }
    return out;
  };
  return {
    read() {
      // Services alone route nothing: without an Ingress or HTTPRoute there is nothing to read.
      objects ??= refs.some((r) => r.kind !== 'Service') ? readAll() : Promise.resolve([]);
      return objects;
    },
  };
}
