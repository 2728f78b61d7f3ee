/** A forge's web base URL as a person configures it (`FORGEJO_URL`, `GITLAB_URL`), and its API root below it. */
import { isTrue } from '../common/setting-parsers.js';
import { rotatingSecret, type RotatingSecret } from '../common/rotating-secret.js';
import { combine, type Check, type Invalid, type Setting } from '../common/settings-schema.js';
import type { ForgeHost } from '../metadata/forge-route.js';

/** The setting that lets a forge's URL be plain http (a simulator, a sidecar or mesh that encrypts); warned at start. */
export const ALLOW_HTTP_SETTING = 'ALLOW_HTTP_FORGE_URLS';

/**
 * A forge URL carries the forge's token: plain http sends it in clear, so it is refused unless ALLOW_HTTP_SETTING is
 * true. Undefined when the URL may be used; else the recorded problem.
 */
export function plainHttpRefused(value: string, check: Check): Invalid | undefined {
  if (!/^http:/i.test(value.trim()) || isTrue(check.other(ALLOW_HTTP_SETTING))) return undefined;
  return check.problem(
    `${check.name} is plain http: the token would cross the network in clear; use https, or set ${ALLOW_HTTP_SETTING}=true (a simulator, or a sidecar or mesh that encrypts)`,
  );
}

export interface ForgeLocation {
  /** The web base URL without a trailing slash, e.g. `https://example.com/forgejo`. */
  webUrl: string;
  /** The API root, e.g. `https://example.com/forgejo/api/v1`. */
  apiBase: string;
  /** `host[:port]`, lower case (the port when not the scheme's default): with the scheme and base path, where its repositories are. */
  host: string;
  /** The host name alone, lower case. */
  hostname: string;
  /** The sub-path of the install (`/forgejo`), or `` at the root of the host. */
  basePath: string;
}

/**
 * Reads an http(s) URL at the root of its host or under a sub-path, with any number of trailing slashes. A URL
 * that already ends in `apiPath` is taken as the API root (a common slip). Credentials, a query or a fragment are
 * refused (the token belongs in `tokenSetting`); the problem never repeats a password.
 */
export function parseForgeUrl(value: string, name: string, apiPath: string, tokenSetting: string): ForgeLocation | { problem: string } {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    return { problem: `${name} is not an absolute URL` };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { problem: `${name} must be an https or http URL` };
  if (u.username !== '' || u.password !== '') return { problem: `${name} must not hold credentials: put the token in ${tokenSetting}` };
  if (u.search !== '' || u.hash !== '') return { problem: `${name} must not have a query or fragment: give the web base URL` };
  let basePath = u.pathname.replace(/\/+$/, '');
  if (basePath.endsWith(apiPath)) basePath = basePath.slice(0, -apiPath.length);
  const webUrl = `${u.origin}${basePath}`;
  return { webUrl, apiBase: `${webUrl}${apiPath}`, host: u.host.toLowerCase(), hostname: u.hostname.toLowerCase(), basePath };
}

/** Where a forge at this web URL lives, for routing: `host[:port]` (the port when not the default), scheme and base path. */
export function placeOf(webUrl: string): Required<Pick<ForgeHost, 'host' | 'scheme' | 'basePath'>> {
  const u = new URL(webUrl);
  return { host: u.host.toLowerCase(), scheme: u.protocol === 'http:' ? 'http' : 'https', basePath: u.pathname.replace(/\/+$/, '') };
}

/**
 * A forge's token beside its URL setting: exactly one of `<token>` and `<token>_FILE` when the URL is set, neither
 * otherwise. `needs` says what the token must be: `an access token with scope api`.
 */
export function tokenBesideUrl(o: { url: string; token: string; doc: string; needs: string }): Setting<RotatingSecret | undefined> {
  const either = `${o.token} or ${o.token}_FILE`;
  return combine(
    { token: rotatingSecret(o.token, { shown: `with \`${o.url}\``, doc: o.doc }) },
    ({ token }, source): RotatingSecret | undefined | Invalid => {
      if (source.text(o.url) === undefined)
        return token === undefined ? undefined : source.problem(`${either} is set, but ${o.url} is not`);
      return token ?? source.problem(`${either} is required with ${o.url}: ${o.needs}`);
    },
  );
}

/** A forge configured by a web URL setting and a token (Forgejo, GitLab): where it lives and what configures it. */
export function placedByUrl<R>(o: {
  forge: string;
  urlSetting: string;
  tokenSetting: string;
  /** Its repository paths nest (GitLab's groups). */
  nested?: boolean;
  location: (settings: R) => Pick<ForgeLocation, 'webUrl'> | undefined;
}) {
  return {
    configuredBy: [o.urlSetting, o.tokenSetting, `${o.tokenSetting}_FILE`],
    host(settings: R): ForgeHost | undefined {
      const at = o.location(settings);
      if (at === undefined) return undefined;
      return { forge: o.forge, ...placeOf(at.webUrl), setting: o.urlSetting, ...(o.nested ? { nested: true } : {}) };
    },
    configuredIn: (env: NodeJS.ProcessEnv) => Boolean(env[o.urlSetting]?.trim()),
    url(settings: R): { setting: string; url: string } | undefined {
      const at = o.location(settings);
      return at && { setting: o.urlSetting, url: at.webUrl };
    },
  };
}
