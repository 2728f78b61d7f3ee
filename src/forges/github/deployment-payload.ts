/**
 * Which GitHub deployment is a target's: the bridge writes its identity into the deployment's payload and,
 * after a crash or a lost answer, finds its own deployment again by reading the payloads GitHub lists.
 */
/** Payload fields that, with owner/repo/environment/sha, identify one deployment. */
const IDENTITY_FIELDS = ['cluster', 'namespace', 'sourceNamespace', 'kustomization', 'helmRelease', 'deploymentName', 'image'];

function asObject(payload: unknown): Record<string, unknown> | undefined {
  if (typeof payload === 'string') {
    try {
      payload = JSON.parse(payload);
    } catch {
      return undefined;
    }
  }
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
}

/**
 * True when an existing deployment's payload was written for this target: the identity fields
 * match (controllerVersion and extras are ignored, so an upgrade never duplicates). The legacy shape
 * (namespace = the Flux object's namespace, no sourceNamespace) matches too.
 */
export function payloadMatches(existing: unknown, target: { payload: Readonly<Record<string, unknown>> }): boolean {
  const p = asObject(existing);
  if (!p) return false;
  const want = target.payload;
  const same = (k: string) => (p[k] ?? null) === (want[k] ?? null);
  if (IDENTITY_FIELDS.every(same)) return true;
  const legacy = p.sourceNamespace === undefined && p.namespace === want.sourceNamespace;
  return legacy && IDENTITY_FIELDS.filter((k) => k !== 'namespace' && k !== 'sourceNamespace').every(same);
}
