/** A forge's name: the `forge` field of targets and rows, the `forge` label of metrics and its key in /state (`github`). */
export type ForgeName = string;

/**
 * The identity of one deployment, on any forge: one per (forge, owner, repo, environment, sha, deploymentName).
 * On a forge without deployment objects (Forgejo) it is one commit-status context.
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

/** The forge that wrote keys without a prefix (rows and refusals stored before a second forge existed). */
const UNPREFIXED_FORGE = 'github';

/** A key's forge prefix: the forge's name and `separator`, or nothing for the forge whose keys predate prefixes. */
export function forgePrefix(forge: string, separator: string): string {
  return forge === UNPREFIXED_FORGE ? '' : `${forge}${separator}`;
}

/** The identity of a target or row: its identity fields alone. */
export const identityOf = (t: Identity): Identity => ({
  forge: t.forge,
  owner: t.owner,
  repo: t.repo,
  environment: t.environment,
  sha: t.sha,
  deploymentName: t.deploymentName,
});

/** The cache key of a target: (owner, repo, environment, sha, deploymentName), after its forge's prefix (`forgejo|`). */
export function identityKey(t: Identity): string {
  const key = [t.owner.toLowerCase(), t.repo.toLowerCase(), t.environment, t.sha, t.deploymentName].join('|');
  return `${forgePrefix(t.forge, '|')}${key}`;
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
 * True when an existing GitHub deployment's payload was written for this target: the identity fields
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
