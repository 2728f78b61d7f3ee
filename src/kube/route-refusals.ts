/**
 * Route discovery is optional: a cluster may not grant the bridge Ingresses, HTTPRoutes or Services.
 * A refused kind (403) is read as "no such object", said once in the log, and not asked again for a
 * while, so a missing permission neither fails a reconcile nor costs a refused request per workload.
 */
import type { Logger } from 'pino';
import { KubeError } from '../common/errors.js';
import type { KubeReader, RoutingKind } from './kube-types.js';

/** How long a refused routing kind is not asked for again (permissions may be granted later). */
export const ROUTE_REFUSAL_RECHECK_MS = 10 * 60_000;

/** The RBAC resource a refused kind needs, for the log line. */
const RULES: Record<RoutingKind, { plural: string; group: string }> = {
  Ingress: { plural: 'ingresses', group: 'networking.k8s.io' },
  HTTPRoute: { plural: 'httproutes', group: 'gateway.networking.k8s.io' },
  Service: { plural: 'services', group: "''" },
};

export interface RouteRefusalOptions {
  now: () => number;
  /** Told the first time a kind is refused (once per kind for the life of the process). */
  log: Pick<Logger, 'warn'>;
}

/** The reader with `getRoutingObject` answering null for kinds RBAC refuses. */
export function withRouteRefusals(inner: KubeReader, o: RouteRefusalOptions): KubeReader {
  const refusedAt = new Map<RoutingKind, number>();
  const told = new Set<RoutingKind>();
  return {
    ...inner,
    async getRoutingObject(kind, namespace, name) {
      const at = refusedAt.get(kind);
      if (at !== undefined && o.now() - at < ROUTE_REFUSAL_RECHECK_MS) return null;
      try {
        const object = await inner.getRoutingObject(kind, namespace, name);
        refusedAt.delete(kind);
        return object;
      } catch (err) {
        if (!(err instanceof KubeError && err.status === 403)) throw err;
        refusedAt.set(kind, o.now());
        if (!told.has(kind)) {
          told.add(kind);
          const { plural, group } = RULES[kind];
          o.log.warn(
            { kind, err: err.message },
            `no RBAC to read ${plural}: preview URLs are not discovered from them (grant get on apiGroups [${group}] resources [${plural}] to enable)`,
          );
        }
        return null;
      }
    },
  };
}
