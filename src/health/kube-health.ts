import { errorMessage } from '../common/errors.js';
import type { KubeReader } from '../kube/kube-types.js';
import { wrapReader } from '../kube/wrap-reader.js';

/** When the Kubernetes API last answered, and the last failure since then. */
export interface KubeHealth {
  lastOk: number | null;
  lastError: string | null;
}

/** Wraps a KubeReader so readiness can tell whether the API answered recently. */
export function withHealth(inner: KubeReader, now: () => number): { reader: KubeReader; health: () => KubeHealth } {
  const state: KubeHealth = { lastOk: null, lastError: null };
  const reader = wrapReader(inner, (read) => async (...args) => {
    const sent = now();
    try {
      const r = await read(...args);
      state.lastOk = now();
      state.lastError = null;
      return r;
    } catch (err) {
      // A request sent before the API last answered (one hung through an outage) says nothing new about it.
      if (state.lastOk === null || sent >= state.lastOk) state.lastError = errorMessage(err);
      throw err;
    }
  });
  return {
    reader,
    health: () => ({ ...state }),
  };
}
