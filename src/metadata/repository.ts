/** `owner/repo` on the GitHub host the bridge writes to. */
export interface RepoName {
  owner: string;
  repo: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

function fromPath(path: string): RepoName | undefined {
  const parts = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length !== 2) return undefined;
  const [owner, repo] = parts as [string, string];
  return NAME.test(owner) && NAME.test(repo) && repo !== '.' && repo !== '..' ? { owner, repo } : undefined;
}

/**
 * Parses a repository reference: `owner/repo`, `https://<host>/owner/repo[.git]`,
 * `git@<host>:owner/repo.git` or `ssh://git@<host>/owner/repo`. `host` is the GitHub web host
 * (`github.com`, or the GHES host); a URL on another host is refused with the reason.
 */
export function parseRepository(value: string, host: string): RepoName | { error: string } {
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
      return { error: `"${value}" is not a URL` };
    }
    urlHost = url.hostname;
    path = url.pathname;
  } else {
    path = v;
  }
  if (urlHost !== undefined && urlHost.toLowerCase() !== host.toLowerCase()) {
    return { error: `"${value}" is not on ${host}` };
  }
  return fromPath(path) ?? { error: `"${value}" does not name owner/repo` };
}

/** The web host of a GitHub API base URL: api.github.com → github.com; GHES https://h/api/v3 → h. */
export function webHostOf(apiUrl: string): string {
  const host = new URL(apiUrl).hostname;
  return host === 'api.github.com' ? 'github.com' : host;
}

const SHA = /^[0-9a-f]{7,40}$/;

/** A commit id usable as a deployment ref: 7–40 hex digits, lower-cased. */
export function parseCommit(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  return SHA.test(v) ? v : undefined;
}
