/** One wrapper around every read of a KubeReader: the spoke gate (spoke-gate.ts) and the API's health (kube-health.ts). */
import type { KubeReader } from './kube-types.js';

/** Takes one read (bound to its reader) and gives what to call in its place. */
export type ReadWrap = <A extends unknown[], R>(read: (...args: A) => Promise<R>) => (...args: A) => Promise<R>;

/** `inner` with each of its reads passed through `wrap`; an optional read only when `inner` has it. */
export function wrapReader(inner: KubeReader, wrap: ReadWrap): KubeReader {
  return {
    getFluxObject: wrap(inner.getFluxObject.bind(inner)),
    listFluxObjects: wrap(inner.listFluxObjects.bind(inner)),
    getWorkload: wrap(inner.getWorkload.bind(inner)),
    listWorkloads: wrap(inner.listWorkloads.bind(inner)),
    getRoutingObject: wrap(inner.getRoutingObject.bind(inner)),
    listRoutingObjects: wrap(inner.listRoutingObjects.bind(inner)),
    getNamespace: wrap(inner.getNamespace.bind(inner)),
    getSecret: wrap(inner.getSecret.bind(inner)),
    ...(inner.getConfigMap ? { getConfigMap: wrap(inner.getConfigMap.bind(inner)) } : {}),
    getServiceAccountPullSecrets: wrap(inner.getServiceAccountPullSecrets.bind(inner)),
    listPods: wrap(inner.listPods.bind(inner)),
  };
}
