/** Where a Forgejo or Gitea server's API lives, from the web base URL a person configures (`FORGEJO_URL`). */

/** Forgejo's API root below the web base URL (the swagger's `basePath`, after `AppSubUrl`). */
export const API_PATH = '/api/v1';

/** A configured Forgejo server. */
export interface ForgejoLocation {
  /** The web base URL without a trailing slash, e.g. `https://example.com/forgejo`. */
  webUrl: string;
  /** The API root, e.g. `https://example.com/forgejo/api/v1`. */
  apiBase: string;
  /** `host[:port]`, lower case: a repository URL on this host is reported to this forge. */
  host: string;
}

/**
 * Reads `FORGEJO_URL`: an http(s) URL, at the root of its host or under a sub-path, with any number
 * of trailing slashes. A URL that already ends in `/api/v1` is taken as the API root (a common slip).
 * Credentials, a query or a fragment are refused (the token belongs in `FORGEJO_TOKEN`); the problem
 * never repeats a password.
 */
export function parseForgejoUrl(value: string, name = 'FORGEJO_URL'): ForgejoLocation | { problem: string } {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    return { problem: `${name} is not an absolute URL` };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { problem: `${name} must be an https or http URL` };
  if (u.username !== '' || u.password !== '') return { problem: `${name} must not hold credentials: put the token in FORGEJO_TOKEN` };
  if (u.search !== '' || u.hash !== '') return { problem: `${name} must not have a query or fragment: give the web base URL` };
  let path = u.pathname.replace(/\/+$/, '');
  if (path.endsWith(API_PATH)) path = path.slice(0, -API_PATH.length);
  const webUrl = `${u.origin}${path}`;
  return { webUrl, apiBase: `${webUrl}${API_PATH}`, host: u.host.toLowerCase() };
}
