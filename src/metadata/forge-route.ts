/**
 * Which forge a repository is reported to, decided by its host: each configured forge claims the host its
 * repositories live on. A bare `owner/repo` goes to the first forge (in the registry's order) that serves,
 * else to the first one listed. Pure.
 */
import type { ForgeName } from '../lifecycle/identity.js';
import type { RepoRef } from './repository.js';

/** Where one configured forge lives. */
export interface ForgeHost {
  forge: ForgeName;
  /** The web host name its repository URLs name (trust patterns match on it). */
  host: string;
  /** The setting that names the host (`FORGEJO_URL`), said when a repository is on no forge; absent for a forge with a default host. */
  setting?: string;
  /** True when its repository paths nest (GitLab's groups and subgroups: `group/sub/project`). */
  nested?: boolean;
  /** Why the forge is known but serves nothing (its credentials are not set), else absent. */
  disabled?: string;
}

/** A repository routed to its forge: `host` is the forge's host name (trust patterns match on it). */
export interface RoutedRepository {
  forge: ForgeName;
  host: string;
}

/** The forge a parsed repository reference is reported to, or why none is. */
export function routeRepository(r: RepoRef, forges: readonly ForgeHost[]): RoutedRepository | { error: string } {
  const serving = forges.filter((f) => f.disabled === undefined);
  const host = (r.host ?? (serving[0] ?? forges[0])?.host ?? '').toLowerCase();
  const forge = forges.find((f) => f.host.toLowerCase() === host);
  if (forge === undefined) {
    const [first, ...others] = forges;
    const nor = others.map((f) => ` nor on ${f.host.toLowerCase()}${f.setting === undefined ? '' : ` (${f.setting})`}`).join('');
    return { error: first === undefined ? 'is on no configured forge' : `is not on ${first.host.toLowerCase()}${nor}` };
  }
  if (forge.disabled !== undefined) {
    const served = serving.map((f) => f.setting ?? f.host).join(', ');
    return { error: `is on ${host}, but ${forge.disabled}${served === '' ? '' : `: only ${served} is served`}` };
  }
  return { forge: forge.forge, host };
}
