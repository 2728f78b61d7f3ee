import { quoted } from '../common/text.js';

/** `owner/repo` on a forge the bridge writes to. */
export interface RepoName {
  owner: string;
  repo: string;
}

/** A parsed repository reference: `host` (lower-cased host name) when it was a URL, absent for a bare `owner/repo`. */
export interface RepoRef extends RepoName {
  host?: string;
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

/**
 * Parses a repository reference: `owner/repo`, `https://<host>/owner/repo[.git]`,
 * `git@<host>:owner/repo.git` or `ssh://git@<host>/owner/repo`. Which forge the host belongs to is
 * the caller's decision (`routeRepository`); the host name is returned lower-cased, without a port.
 * On a host in `nestedHosts` (GitLab's) a URL may name nested groups: `group/sub/app` is owner `group/sub`.
 */
export function parseRepository(value: string, nestedHosts: readonly string[] = []): RepoRef | { error: string } {
  const v = value.trim();
  const scp = /^[\w.-]+@([^:/]+):(.+)$/.exec(v);
  let urlHost: string | undefined;
  let path: string;
  if (scp) {
    urlHost = scp[1];
    path = scp[2] ?? '';
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) {
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      return { error: `${quoted(value)} is not a URL` };
    }
    urlHost = url.hostname;
    path = url.pathname;
  } else {
    path = v;
  }
  const name = repositoryName(path, urlHost !== undefined && nestedHosts.includes(urlHost.toLowerCase()));
  if (name === undefined) return { error: `${quoted(value)} does not name owner/repo` };
  return urlHost === undefined ? name : { ...name, host: urlHost.toLowerCase() };
}

const SHA = /^[0-9a-f]{7,40}$/;

/** A commit id usable as a deployment ref: 7–40 hex digits, lower-cased. */
export function parseCommit(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  return SHA.test(v) ? v : undefined;
}
