/** `owner/repo` on a forge the bridge writes to. */
export interface RepoName {
  owner: string;
  repo: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

/** Most path segments a URL may name: GitLab nests 20 levels of groups above a project. */
const MAX_SEGMENTS = 21;

/**
 * The repository a path names, below its forge's base path: `owner/repo[.git]`; on a forge whose paths nest
 * (`nested`, GitLab) also `group/sub/repo`, the owner being the group path; a web URL's `/-/tree/…` tail dropped.
 */
export function repositoryName(path: string, nested: boolean): RepoName | undefined {
  const parts = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\/-(\/.*)?$/, '')
    .replace(/\.git\/?$/, '')
    .split('/');
  if (parts.length < 2 || parts.length > (nested ? MAX_SEGMENTS : 2)) return undefined;
  if (!parts.every((p) => NAME.test(p) && p !== '.' && p !== '..')) return undefined;
  return { owner: parts.slice(0, -1).join('/'), repo: parts.at(-1) ?? '' };
}

const SHA = /^[0-9a-f]{7,40}$/;

/** A commit id usable as a deployment ref: 7–40 hex digits, lower-cased. */
export function parseCommit(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  return SHA.test(v) ? v : undefined;
}
