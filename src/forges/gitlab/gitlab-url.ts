/**
 * Where a GitLab server is (`GITLAB_URL`, sub-path installs included), which project a source URL
 * names (nested groups: `platform/team/app`), its URL-encoded id, and whether `ALLOWED_REPOSITORIES`
 * lets it through (`host/group/*` covers every project below the group, subgroups included). Pure.
 */

import { parseForgeUrl, type ForgeLocation } from '../forge-url.js';

/** GitLab's REST root below the web base URL. */
export const API_PATH = '/api/v4';
/** GitLab nests at most 20 levels of groups; a project path has one more segment. */
const MAX_SEGMENTS = 21;
/** A group or project path segment (`Gitlab::PathRegex`): letters, digits, `_`, `.`, `-`, not starting with `-` or `.`. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** A configured GitLab (`GITLAB_URL`). */
export type GitLabLocation = ForgeLocation;

/** Reads `GITLAB_URL` (forge-url.ts: https or http, sub-paths, a trailing `/api/v4` forgiven, no credentials). */
export function parseGitLabUrl(value: string, name = 'GITLAB_URL'): GitLabLocation | { problem: string } {
  return parseForgeUrl(value, name, API_PATH, 'GITLAB_TOKEN');
}

/** A project's full path from its segments, or a problem naming the bad one. */
function projectPath(segments: string[]): string | { error: string } {
  if (segments.length < 2) return { error: 'names no group/project' };
  if (segments.length > MAX_SEGMENTS) return { error: `has more than ${MAX_SEGMENTS - 1} levels of groups` };
  const bad = segments.find((s) => !SEGMENT.test(s));
  return bad === undefined ? segments.join('/') : { error: `has "${bad}", which is not a GitLab group or project name` };
}

/**
 * The project a source URL names on this GitLab: `https://<host>[/sub-path]/group/sub/app[.git]`
 * (a web URL's `/-/tree/…` tail dropped), `ssh://git@<host>[:port]/group/app.git` or
 * `git@<host>:group/app.git`. Undefined when the URL is on another host (routing is not decided here).
 */
export function gitlabProjectOf(loc: GitLabLocation, value: string): string | { error: string } | undefined {
  const v = value.trim();
  const scp = /^[\w.-]+@([^:/]+):(?!\/)(.+)$/.exec(v);
  let hostname: string;
  let path: string;
  let web = false;
  if (scp !== null) {
    hostname = (scp[1] ?? '').toLowerCase();
    path = scp[2] ?? '';
  } else {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return { error: `"${value}" is not a URL` };
    }
    hostname = u.hostname.toLowerCase();
    path = decodeURIComponent(u.pathname);
    web = u.protocol === 'https:' || u.protocol === 'http:';
  }
  if (hostname !== loc.hostname) return undefined;
  if (web && loc.basePath !== '') {
    if (path !== loc.basePath && !path.startsWith(`${loc.basePath}/`)) return { error: `"${value}" is not below ${loc.webUrl}` };
    path = path.slice(loc.basePath.length);
  }
  const segments = path
    .replace(/\/-\/.*$/, '')
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter(Boolean);
  const project = projectPath(segments);
  return typeof project === 'string' ? project : { error: `"${value}" ${project.error}` };
}

/** The `:id` of a project in API paths: its full path URL-encoded (`platform%2Fteam%2Fapp`). */
export function projectId(path: string): string {
  return encodeURIComponent(path);
}

/**
 * Whether one `ALLOWED_REPOSITORIES` entry lets the GitLab project `path` through. An entry whose
 * first segment is the GitLab host (`host/group/*`, `host/group/sub/project`) speaks of this GitLab
 * only; a two-segment entry without a host (`group/*`, `group/project`) of every forge; any other
 * entry names another forge's host and lets nothing through here. `group/*` covers every project
 * below the group, subgroups included. Compared case-insensitively, as GitLab resolves paths.
 */
export function gitlabEntryAllows(entry: string, loc: GitLabLocation, path: string): boolean {
  const parts = entry.trim().toLowerCase().split('/').filter(Boolean);
  const scoped = parts[0] === loc.host || parts[0] === loc.hostname;
  if (!scoped && parts.length !== 2) return false;
  const pattern = scoped ? parts.slice(1) : parts;
  if (pattern.length < 2) return false;
  const project = path.toLowerCase().split('/');
  if (pattern.at(-1) === '*') {
    const group = pattern.slice(0, -1);
    return project.length > group.length && group.every((g, i) => g === project[i]);
  }
  return pattern.length === project.length && pattern.every((p, i) => p === project[i]);
}

/** Whether `ALLOWED_REPOSITORIES` (its entries) lets the project through; an empty list allows every project. */
export function gitlabProjectAllowed(entries: readonly string[], loc: GitLabLocation, path: string): boolean {
  return entries.length === 0 || entries.some((e) => gitlabEntryAllows(e, loc, path));
}
