import type { Logger } from 'pino';
import type { RepoRef } from './github-types.js';

/** How long a looked-up installation is trusted before it is looked up again. */
export const INSTALLATION_TTL_MS = 60 * 60_000;

/** Where installations are remembered (SQLite in production). */
export interface InstallationCache {
  get(owner: string): { installationId: number; resolvedAt: number } | undefined;
  set(owner: string, installationId: number, now: number): void;
  forgetInstallation(installationId: number): void;
}

export interface InstallationResolverOptions {
  /** `GITHUB_APP_INSTALLATION_ID`: every repository uses this installation; nothing is looked up. */
  pinned?: number;
  cache: InstallationCache;
  /** `GET /repos/{owner}/{repo}/installation`, answering the installation id. */
  lookup: (repo: RepoRef) => Promise<number>;
  now: () => number;
  log: Logger;
}

/**
 * Which App installation writes to a repository: the pinned one, or the owner's installation looked
 * up through one of its repositories and cached (per owner, with a TTL). Concurrent look-ups of one
 * owner share a request.
 */
export class InstallationResolver {
  private readonly pending = new Map<string, Promise<number>>();

  constructor(private readonly o: InstallationResolverOptions) {}

  async installationFor(repo: RepoRef): Promise<number> {
    if (this.o.pinned !== undefined) return this.o.pinned;
    const owner = repo.owner.toLowerCase();
    const cached = this.o.cache.get(owner);
    if (cached !== undefined && this.o.now() - cached.resolvedAt < INSTALLATION_TTL_MS) return cached.installationId;
    let p = this.pending.get(owner);
    if (p === undefined) {
      p = this.o
        .lookup(repo)
        .then((id) => {
          this.o.cache.set(owner, id, this.o.now());
          if (cached?.installationId !== id) this.o.log.info({ owner: repo.owner, installationId: id }, 'GitHub App installation found');
          return id;
        })
        .finally(() => this.pending.delete(owner));
      this.pending.set(owner, p);
    }
    return p;
  }

  /** The installation is gone (GitHub answered 404 for its token): look its owners up again. */
  forget(installationId: number): void {
    this.o.cache.forgetInstallation(installationId);
  }
}
