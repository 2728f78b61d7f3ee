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

/**
 * The reader with `getRoutingObject` answering null for kinds RBAC refuses, and `listRoutingObjects`
 * throwing a refused list's KubeError again without asking (the pass listings then fall back to GETs).
 */
export function withRouteRefusals(inner: KubeReader, o: RouteRefusalOptions): KubeReader {
  const refused = new Map<string, { at: number; err: KubeError }>();
  const told = new Set<RoutingKind>();

  /** Runs one read unless the verb on the kind was refused lately; remembers and tells a new refusal. */
  async function guarded<T>(verb: 'get' | 'list', kind: RoutingKind, read: () => Promise<T>, onRefused: (err: KubeError) => T): Promise<T> {
    const key = `${verb} ${kind}`;
    const hit = refused.get(key);
    if (hit && o.now() - hit.at < ROUTE_REFUSAL_RECHECK_MS) return onRefused(hit.err);
    try {
      const value = await read();
      refused.delete(key);
      return value;
    } catch (err) {
      if (!(err instanceof KubeError && err.status === 403)) throw err;
      refused.set(key, { at: o.now(), err });
      if (!told.has(kind)) {
        told.add(kind);
        const { plural, group } = RULES[kind];
        o.log.warn(
          { kind, verb, err: err.message },
          `no RBAC to ${verb} ${plural}: preview URLs are not discovered from them (grant get, list on apiGroups [${group}] resources [${plural}] to enable)`,
        );
      }
      return onRefused(err);
    }
  }

  return {
    ...inner,
    getRoutingObject: (kind, namespace, name) =>
      guarded(
        'get',
        kind,
        () => inner.getRoutingObject(kind, namespace, name),
        () => null,
      ),
    listRoutingObjects: (kind, namespace) =>
      guarded(
        'list',
        kind,
        () => inner.listRoutingObjects(kind, namespace),
        (err) => {
          throw err;
        },
      ),
  };
}
