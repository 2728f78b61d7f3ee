import { errorMessage } from '../common/errors.js';
import type { KubeReader } from '../kube/kube-types.js';

/** When the Kubernetes API last answered, and the last failure since then. */
export interface KubeHealth {
  lastOk: number | null;
  lastError: string | null;
}

/** Wraps a KubeReader so readiness can tell whether the API answered recently. */
export function withHealth(inner: KubeReader, now: () => number): { reader: KubeReader; health: () => KubeHealth } {
  const state: KubeHealth = { lastOk: null, lastError: null };
  const track =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const sent = now();
      try {
        const r = await fn(...args);
        state.lastOk = now();
        state.lastError = null;
        return r;
      } catch (err) {
        // A request sent before the API last answered (one hung through an outage) says nothing new about it.
        if (state.lastOk === null || sent >= state.lastOk) state.lastError = errorMessage(err);
        throw err;
      }
    };
  return {
    reader: {
      getFluxObject: track(inner.getFluxObject.bind(inner)),
      listFluxObjects: track(inner.listFluxObjects.bind(inner)),
      getWorkload: track(inner.getWorkload.bind(inner)),
      listWorkloads: track(inner.listWorkloads.bind(inner)),
      getRoutingObject: track(inner.getRoutingObject.bind(inner)),
      listRoutingObjects: track(inner.listRoutingObjects.bind(inner)),
      getNamespace: track(inner.getNamespace.bind(inner)),
      getSecret: track(inner.getSecret.bind(inner)),
      ...(inner.getConfigMap ? { getConfigMap: track(inner.getConfigMap.bind(inner)) } : {}),
      getServiceAccountPullSecrets: track(inner.getServiceAccountPullSecrets.bind(inner)),
      listPods: track(inner.listPods.bind(inner)),
    },
    health: () => ({ ...state }),
  };
}
