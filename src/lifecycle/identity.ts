/** A forge's name: the `forge` field of targets and rows, the `forge` label of metrics and its key in /state (`github`). */
export type ForgeName = string;

/**
 * The identity of one deployment, on any forge: one per (forge, owner, repo, environment, sha, deploymentName).
 * On a forge without deployment objects it is one commit-status context.
 */
export interface Identity {
  forge: ForgeName;
  owner: string;
  repo: string;
  environment: string;
  sha: string;
  deploymentName: string;
}

/** Payload fields that, with owner/repo/environment/sha, identify one deployment. */
const IDENTITY_FIELDS = ['cluster', 'namespace', 'sourceNamespace', 'kustomization', 'helmRelease', 'deploymentName', 'image'];

/** The identity of a target or row: its identity fields alone. */
export const identityOf = (t: Identity): Identity => ({
  forge: t.forge,
  owner: t.owner,
  repo: t.repo,
  environment: t.environment,
  sha: t.sha,
  deploymentName: t.deploymentName,
});

/** The key of a target: its forge, then (owner, repo, environment, sha, deploymentName): `forgejo|acme|web|…`. */
export function identityKey(t: Identity): string {
  return [t.forge, t.owner.toLowerCase(), t.repo.toLowerCase(), t.environment, t.sha, t.deploymentName].join('|');
}

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
