/**
 * Which forge a repository is reported to, decided by its host: the `FORGEJO_URL` host goes to
 * Forgejo (commit statuses), the GitHub host to GitHub (deployments). A bare `owner/repo` goes to
 * GitHub when GitHub credentials are set, else to Forgejo. Pure.
 */
import type { RepoRef } from './repository.js';

/** The forges the bridge writes to; the value is also the `forge` label and field of metrics and /state. */
export type Forge = 'github' | 'forgejo';

/** Where each forge lives, as configured. */
export interface ForgeHosts {
  /** GitHub's web host name (`github.com`, or the GHES host). */
  github: string;
  /** False when no GitHub credentials are set (a Forgejo-only bridge). */
  githubEnabled: boolean;
  /** The host name of `FORGEJO_URL`, when Forgejo is configured. */
  forgejo?: string | undefined;
}

/** A repository routed to its forge: `host` is the forge's host name (trust patterns match on it). */
export interface RoutedRepository {
  forge: Forge;
  host: string;
}

/** The forge a parsed repository reference is reported to, or why none is. */
export function routeRepository(r: RepoRef, hosts: ForgeHosts): RoutedRepository | { error: string } {
  const github = hosts.github.toLowerCase();
  const forgejo = hosts.forgejo?.toLowerCase();
  const host = r.host ?? (hosts.githubEnabled || forgejo === undefined ? github : forgejo);
  if (forgejo !== undefined && host === forgejo) return { forge: 'forgejo', host };
  if (host !== github) return { error: `is not on ${github}${forgejo === undefined ? '' : ` nor on ${forgejo} (FORGEJO_URL)`}` };
  if (!hosts.githubEnabled)
    return { error: `is on ${github}, but no GitHub credentials are set (GITHUB_TOKEN or a GitHub App): only FORGEJO_URL is served` };
  return { forge: 'github', host };
}
