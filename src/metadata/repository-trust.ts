/**
 * The trust boundary for repositories. Image labels are written by application builds, which
 * application developers control; platform-owned annotations (manifests from a protected branch)
 * are trusted. Pure.
 */

/** Where the repository of a deployment may come from: `any` (annotation, else image label) or `annotation` only. */
export type RepositorySource = 'annotation' | 'any';

/**
 * One `ALLOWED_REPOSITORIES` entry: `owner/*` or `owner/repo` (on any forge), `host[:port]/owner/*` or
 * `host[:port]/owner/repo` (only on the forge at that host and port; without a port, the forge on its
 * scheme's default port), and on GitLab `host/group/sub/project` and `host/group/*` (every project below
 * the group, subgroups included); compared case-insensitively.
 */
export interface RepositoryPattern {
  /** The forge's host name, with `:port` when one was written; absent: any forge. */
  host?: string;
  owner: string;
  /** `*` matches every repository of the owner. */
  repo: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;
/** A host name, and a port when written (`gitlab.corp.example:8443`). */
const HOST = /^[A-Za-z0-9.-]+(?::(\d{1,5}))?$/;
/** Most segments of a repository path: GitLab nests 20 levels of groups above a project. */
const MAX_SEGMENTS = 21;

/** Parses a comma list of `[host/]owner/*` and `[host/]owner/repo`; every bad entry is reported. */
export function parseRepositoryPatterns(value: string): { patterns: RepositoryPattern[]; errors: string[] } {
  const patterns: RepositoryPattern[] = [];
  const errors: string[] = [];
  for (const entry of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const parts = entry.split('/');
    // Three or more segments start with a host: `host/owner/repo`, or a GitLab group path `host/group/sub/project`.
    const host = parts.length >= 3 ? parts[0] : undefined;
    const path = parts.slice(host === undefined ? 0 : 1);
    const repo = path.at(-1);
    const groups = path.slice(0, -1);
    const owner = groups.join('/');
    const bad =
      parts.length < 2 ||
      parts.length > MAX_SEGMENTS + 1 ||
      (host !== undefined && !validHost(host)) ||
      // A group path (`host/group/sub/project`) needs a host that reads as one: `acme/web/extra` stays a mistake.
      (parts.length > 3 && !host?.includes('.')) ||
      repo === undefined ||
      groups.length === 0 ||
      !groups.every((g) => NAME.test(g)) ||
      (repo !== '*' && !NAME.test(repo));
    if (bad) {
      errors.push(`"${entry}" is not owner/repo, owner/*, host[:port]/owner/repo or host[:port]/owner/*`);
      continue;
    }
    patterns.push({ ...(host === undefined ? {} : { host: normalHost(host) }), owner: owner.toLowerCase(), repo: repo.toLowerCase() });
  }
  return { patterns, errors };
}

function validHost(host: string): boolean {
  const port = HOST.exec(host)?.[1];
  return HOST.test(host) && (port === undefined || (Number(port) >= 1 && Number(port) <= 65_535));
}

/** `host[:port]` lower case, the port without leading zeros. */
function normalHost(host: string): string {
  const [name = '', port] = host.toLowerCase().split(':');
  return port === undefined ? name : `${name}:${Number(port)}`;
}

/**
 * True when `owner/repo` on the forge at `host` (`name[:port]`, the port only when not its scheme's default,
 * `defaultPort`) matches one of the patterns; an empty list allows every repository. A pattern without a port
 * names the forge on its default port; one naming the default port is the same.
 */
export function repositoryAllowed(
  patterns: readonly RepositoryPattern[],
  owner: string,
  repo: string,
  host?: string,
  defaultPort = 443,
): boolean {
  if (patterns.length === 0) return true;
  const o = owner.toLowerCase();
  const r = repo.toLowerCase();
  const h = host === undefined ? undefined : normalHost(host);
  const onForge = (p: RepositoryPattern) => p.host === undefined || p.host === h || p.host === `${h}:${defaultPort}`;
  // `group/*` covers every repository below the group, subgroups included (only GitLab's owners nest).
  const below = (p: RepositoryPattern) => p.repo === '*' && o.startsWith(`${p.owner}/`);
  return patterns.some((p) => onForge(p) && ((p.owner === o && (p.repo === '*' || p.repo === r)) || below(p)));
}

/** The patterns as written back in configuration syntax, for messages. */
export function describePatterns(patterns: readonly RepositoryPattern[]): string {
  return patterns.map((p) => `${p.host === undefined ? '' : `${p.host}/`}${p.owner}/${p.repo}`).join(',');
}

/**
 * The repository value to use and where it came from: the annotation always wins; the image label
 * counts only when `source` is `any`. Undefined when neither may name it.
 */
export function pickRepository(
  annotation: string | undefined,
  label: string | undefined,
  source: RepositorySource,
): { value: string; from: 'annotation' | 'label' } | undefined {
  if (annotation) return { value: annotation, from: 'annotation' };
  if (label && source === 'any') return { value: label, from: 'label' };
  return undefined;
}

/** What the trust boundary is, for /state's `trust` field and the start-up line. */
export interface Trust {
  /** `open`: any repository the credentials can write; `allow-list`: only ALLOWED_REPOSITORIES' patterns. */
  mode: 'open' | 'allow-list';
  patterns: number;
  repositorySource: string;
}

/** The boundary the settings draw. */
export function trustOf(s: { allowedRepositories: readonly RepositoryPattern[]; repositorySource: string }): Trust {
  return {
    mode: s.allowedRepositories.length === 0 ? 'open' : 'allow-list',
    patterns: s.allowedRepositories.length,
    repositorySource: s.repositorySource,
  };
}
