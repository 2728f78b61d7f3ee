/**
 * Which repositories exist on the simulated GitHub. A test lists them (`repos`), or, without a list, every
 * repository of a few owners exists (`owners`, by default DEFAULT_OWNERS). Any other repository answers 404 on
 * every repository-scoped route (REST, `repository(owner, name)` in GraphQL, an App's installation look-up), as
 * GitHub does for a repository that does not exist or that the credential cannot see: none exists by accident.
 */
import { repoKey } from './state.js';

export interface KnownRepos {
  /** "owner/repo" names that exist; others answer 404. */
  repos?: string[] | undefined;
  /** Without `repos`: the owners whose every repository exists (default DEFAULT_OWNERS). */
  owners?: string[] | undefined;
}

/** The owners of a simulator started without `repos`: the one the tests' worlds name. */
export const DEFAULT_OWNERS: readonly string[] = ['acme'];

/** Whether a repository exists: listed in `repos`, or, without `repos`, of one of `owners` (case-insensitive, as on GitHub). */
export function repoExists(known: KnownRepos, owner: string, repo: string): boolean {
  if (known.repos !== undefined) return known.repos.some((r) => r.toLowerCase() === repoKey(owner, repo));
  return (known.owners ?? DEFAULT_OWNERS).some((o) => o.toLowerCase() === owner.toLowerCase());
}
