/**
 * Reading the objects a Flux health-check failure is about.
 *
 * Flux formats each object it waited for as `<Kind>/<namespace>/<name>` (`<Kind>/<name>` when
 * cluster-scoped) followed by its kstatus, inside a bracketed list:
 *   health check failed after 5m0s: timeout waiting for: [Deployment/apps/web status: 'InProgress', …]
 *   health check failed after 16ms: failed early due to stalled resources: [Deployment/apps/web status: 'Failed']
 *   Health check failed after 2m0.01s, timeout waiting for: [HelmRelease/apps/web status: 'InProgress']
 * and, when no status could be read, `Deployment/apps/web (unknown status)` or
 * `can't determine status for Deployment/apps/web`. A status may be followed by `: <error text>`.
 */

/** A Kubernetes kind, namespace (DNS label) and name (DNS subdomain), as Flux prints them. */
const OBJECT = String.raw`(?<![A-Za-z0-9])([A-Z][A-Za-z0-9]*)/([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)/([a-z0-9](?:[-.a-z0-9]*[a-z0-9])?)`;

/** An object reference in one of the forms Flux uses in health-check messages. */
const REFERENCE = new RegExp(String.raw`(?:can't determine status for ${OBJECT})|(?:${OBJECT}(?= status: '| \(unknown status\)))`, 'g');

/**
 * The namespaced objects named in a Flux `HealthCheckFailed` (or kstatus wait) message, as
 * `Kind/namespace/name` keys, e.g. `Deployment/apps/web`. Cluster-scoped objects (two parts) and
 * text that is not an object reference are ignored; an empty set means the message names nothing.
 */
export function namedObjects(message: string): Set<string> {
  const out = new Set<string>();
  for (const m of message.matchAll(REFERENCE)) {
    const [kind, namespace, name] = m[1] !== undefined ? [m[1], m[2], m[3]] : [m[4], m[5], m[6]];
    out.add(`${kind}/${namespace}/${name}`);
  }
  return out;
}
