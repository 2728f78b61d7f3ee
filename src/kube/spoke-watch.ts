/**
 * A spoke's watch transport with its health: a list or watch that fails as an outage (network, TLS, timeout,
 * 5xx, 401: spoke-gate.ts's classes) counts against the spoke like any other read, and one that works says
 * it answers. A 403 or 404 is the spoke's answer (its RBAC), not an outage.
 */
import type { ClusterFailure, GateEvents } from './spoke-gate.js';
import { ClusterUnavailable, failureOf } from './spoke-gate.js';
import type { WatchTransport } from './watch-stream.js';

export function healthOfWatches(cluster: string, inner: WatchTransport, events: GateEvents, now: () => number): WatchTransport {
  const failed = (failure: ClusterFailure, message: string) =>
    events.failed(failure, message.startsWith(`cluster ${cluster}:`) ? message : `cluster ${cluster}: ${message}`);
  return {
    async list(path, timeoutMs) {
      try {
        const listing = await inner.list(path, timeoutMs);
        events.answered(now());
        return listing;
      } catch (err) {
        const failure = failureOf(err);
        if (failure !== undefined && err instanceof Error) {
          failed(failure, err.message);
          throw err instanceof ClusterUnavailable ? err : new ClusterUnavailable(cluster, failure, `cluster ${cluster}: ${err.message}`);
        }
        throw err;
      }
    },
    watch(path, query, onEvent, idleMs) {
      const handle = inner.watch(path, query, onEvent, idleMs);
      void handle.ended.then((end) => {
        if (end.reason !== 'failed') return;
        const failure = failureOf(end.error);
        if (failure !== undefined) failed(failure, end.error.message);
      });
      return handle;
    },
  };
}
