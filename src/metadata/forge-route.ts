/**
 * Which forge a repository is reported to, decided by where it lives: scheme, host name, port and base path.
 * A web URL goes to the forge on its host name and port (a URL without a port reaches a forge on its default
 * port) whose base path holds the URL's path, the longest base path first, and that base path is stripped; a
 * URL on a forge's host and port but outside its base path is on no forge. An ssh form goes by host name
 * alone (its port is ssh's). A bare `owner/repo` goes to the first forge (in the registry's order) that
 * serves, else to the first one listed. Pure.
 */
import type { ForgeName } from '../lifecycle/identity.js';
import { defaultPortOf, type RepoLocation } from './repository-location.js';

/** Where one configured forge lives. */
export interface ForgeHost {
  forge: ForgeName;
  /** `host[:port]` of its web URL, the port only when it is not the scheme's default (trust patterns match on it). */
  host: string;
  /** The scheme of its web URL; default https. */
  scheme?: 'http' | 'https';
  /** The sub-path it is installed under (`/gitlab`); absent or '' at the root of its host. */
  basePath?: string;
  /** The setting that names the host (`FORGEJO_URL`), said when a repository is on no forge; absent for a forge with a default host. */
  setting?: string;
  /** True when its repository paths nest (GitLab's groups and subgroups: `group/sub/project`). */
  nested?: boolean;
  /** Why the forge is known but serves nothing (its credentials are not set), else absent. */
  disabled?: string;
}

/** A repository routed to its forge. */
export interface RoutedRepository {
  forge: ForgeName;
  /** The forge's `host[:port]`, lower case, the port only when not its scheme's default (trust patterns match on it). */
  host: string;
  /** The default port of the forge's scheme: a trust pattern naming it is the same as one naming no port. */
  defaultPort: number;
  /** The repository's path below the forge's base path. */
  path: string;
  /** Whether the forge's repository paths nest (GitLab). */
  nested: boolean;
}

interface Place {
  forge: ForgeHost;
  hostname: string;
  port: number;
  onDefaultPort: boolean;
  basePath: string;
  /** `host[:port]`, the port only when not the default. */
  host: string;
  /** `host[:port]/base`, for messages. */
  where: string;
}

function placeOf(f: ForgeHost): Place {
  const scheme = f.scheme ?? 'https';
  const basePath = (f.basePath ?? '').replace(/\/+$/, '');
  let hostname = f.host.toLowerCase();
  let port = defaultPortOf(scheme);
  let explicit = '';
  if (URL.canParse(`${scheme}://${f.host}`)) {
    const u = new URL(`${scheme}://${f.host}`);
    hostname = u.hostname;
    explicit = u.port;
    if (explicit !== '') port = Number(explicit);
  }
  const host = `${hostname}${explicit === '' ? '' : `:${explicit}`}`;
  return { forge: f, hostname, port, onDefaultPort: explicit === '', basePath, host, where: `${host}${basePath}` };
}

const below = (base: string, path: string) => base === '' || path === base || path.startsWith(`${base}/`);

function routed(p: Place, path: string): RoutedRepository {
  const f = p.forge;
  const defaultPort = defaultPortOf(f.scheme ?? 'https');
  return {
    forge: f.forge,
    host: p.host,
    defaultPort,
    path,
    nested: f.nested === true,
  };
}

const named = (p: Place) => `${p.where}${p.forge.setting === undefined ? '' : ` (${p.forge.setting})`}`;

/** The forge a repository location is reported to (with its path below the forge's base path), or why none is. */
export function routeRepository(loc: RepoLocation, forges: readonly ForgeHost[]): RoutedRepository | { error: string } {
  const places = forges.map(placeOf);
  let place: Place | undefined;
  let path = loc.path;
  if (loc.form === 'bare') {
    place = places.find((p) => p.forge.disabled === undefined) ?? places[0];
  } else if (loc.form === 'ssh') {
    const on = places.filter((p) => p.hostname === loc.hostname);
    if (on.length > 1)
      return {
        error: `names ${loc.hostname} over ssh, where ${on.length} forges live (${on.map(named).join(', ')}): give the repository's web URL`,
      };
    place = on[0];
  } else {
    const port = loc.port === '' ? defaultPortOf(loc.scheme) : Number(loc.port);
    const on = places.filter((p) => p.hostname === loc.hostname && (p.port === port || (loc.port === '' && p.onDefaultPort)));
    place = on.filter((p) => below(p.basePath, loc.path)).sort((a, b) => b.basePath.length - a.basePath.length)[0];
    const outside = on[0];
    if (place === undefined && outside !== undefined)
      return { error: `is on ${outside.host} but not below ${named(outside)}: it is on no configured forge` };
    if (place !== undefined) path = loc.path.slice(place.basePath.length);
  }
  if (place === undefined) {
    const [first, ...others] = places;
    const nor = others.map((p) => ` nor on ${named(p)}`).join('');
    return { error: first === undefined ? 'is on no configured forge' : `is not on ${named(first)}${nor}` };
  }
  if (place.forge.disabled !== undefined) {
    const served = places.filter((p) => p.forge.disabled === undefined).map((p) => p.forge.setting ?? p.where);
    const list = served.join(', ');
    return { error: `is on ${place.where}, but ${place.forge.disabled}${list === '' ? '' : `: only ${list} is served`}` };
  }
  return routed(place, path);
}

/**
 * Why a bare path of nested groups (`platform/team/app`) names no repository on the forge it went to: only
 * GitLab's paths nest, and a bare path goes to the first forge served. Undefined when that is not the problem.
 */
export function nestedPathHint(loc: RepoLocation, to: RoutedRepository, forges: readonly ForgeHost[]): string | undefined {
  if (loc.form !== 'bare' || to.nested || loc.path.replace(/^\/+|\/+$/g, '').split('/').length < 3) return undefined;
  const nesting = forges.find((f) => f.nested === true && f.disabled === undefined);
  if (nesting === undefined) return `a path of nested groups names a GitLab project, and no GitLab is configured (GITLAB_URL)`;
  const web = `${nesting.scheme ?? 'https'}://${nesting.host}${(nesting.basePath ?? '').replace(/\/+$/, '')}`;
  return `a path without a host goes to ${to.forge}, the first forge served: for the GitLab project write its URL, ${web}/${loc.path.trim()}`;
}
