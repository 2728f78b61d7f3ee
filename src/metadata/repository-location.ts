/**
 * Where a repository reference points, before any forge is chosen (pure): a bare path (`owner/repo`,
 * `group/sub/app`), a web URL (scheme, host name, port, path: the forge's base path is still in it), or an
 * ssh form (`git@host:path`, `ssh://git@host:2222/path`: its port is the ssh port, never the forge's web port,
 * and its path never holds a web base path). Which forge it is on is `routeRepository`'s call.
 */
import { quoted } from '../common/text.js';

export type RepoLocation =
  | { form: 'bare'; path: string }
  /** `port` as the URL wrote it, '' for the scheme's default (the WHATWG parser drops an explicit default). */
  | { form: 'web'; scheme: 'http' | 'https'; hostname: string; port: string; path: string }
  | { form: 'ssh'; hostname: string; path: string };

/** The port an http(s) URL reaches when it names none. */
export function defaultPortOf(scheme: string): number {
  return scheme.replace(/:$/, '').toLowerCase() === 'http' ? 80 : 443;
}

/** Parses a repository reference's location; the host name is lower-cased, the path kept as written (decoded). */
export function parseRepositoryLocation(value: string): RepoLocation | { error: string } {
  const v = value.trim();
  const scp = /^[\w.-]+@([^:/]+):(?!\/)(.+)$/.exec(v);
  if (scp !== null) return { form: 'ssh', hostname: (scp[1] ?? '').toLowerCase(), path: scp[2] ?? '' };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return { form: 'bare', path: v };
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return { error: `${quoted(value)} is not a URL` };
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return { error: `${quoted(value)} is not a URL` };
  }
  const hostname = url.hostname.toLowerCase();
  if (url.protocol === 'https:' || url.protocol === 'http:')
    return { form: 'web', scheme: url.protocol === 'http:' ? 'http' : 'https', hostname, port: url.port, path };
  return { form: 'ssh', hostname, path };
}
