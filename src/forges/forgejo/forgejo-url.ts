/** Where a Forgejo or Gitea server's API lives, from the web base URL a person configures (`FORGEJO_URL`). */
import { parseForgeUrl, type ForgeLocation } from '../forge-url.js';

/** Forgejo's API root below the web base URL (the swagger's `basePath`, after `AppSubUrl`). */
export const API_PATH = '/api/v1';

/** A configured Forgejo server. */
export type ForgejoLocation = Pick<ForgeLocation, 'webUrl' | 'apiBase' | 'host'>;

/** Reads `FORGEJO_URL` (forge-url.ts: https or http, sub-paths, a trailing `/api/v1` forgiven, no credentials). */
export function parseForgejoUrl(value: string, name = 'FORGEJO_URL'): ForgejoLocation | { problem: string } {
  const parsed = parseForgeUrl(value, name, API_PATH, 'FORGEJO_TOKEN');
  if ('problem' in parsed) return parsed;
  const { webUrl, apiBase, host } = parsed;
  return { webUrl, apiBase, host };
}
