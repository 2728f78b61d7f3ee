/**
 * Where a GitLab server is (`GITLAB_URL`, sub-path installs included) and a project's URL-encoded id. Which
 * project a source URL names is routing's call (metadata/forge-route.ts, base path and nested groups). Pure.
 */

import { parseForgeUrl, type ForgeLocation } from '../forge-url.js';

/** GitLab's REST root below the web base URL. */
export const API_PATH = '/api/v4';

/** A configured GitLab (`GITLAB_URL`). */
export type GitLabLocation = ForgeLocation;

/** Reads `GITLAB_URL` (forge-url.ts: https or http, sub-paths, a trailing `/api/v4` forgiven, no credentials). */
export function parseGitLabUrl(value: string, name = 'GITLAB_URL'): GitLabLocation | { problem: string } {
  return parseForgeUrl(value, name, API_PATH, 'GITLAB_TOKEN');
}

/** The `:id` of a project in API paths: its full path URL-encoded (`platform%2Fteam%2Fapp`). */
export function projectId(path: string): string {
  return encodeURIComponent(path);
}
