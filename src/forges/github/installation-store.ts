import type { Db } from '../../store/database.js';

/** A repository owner's GitHub App installation, as last looked up. */
export interface CachedInstallation {
  installationId: number;
  resolvedAt: number;
}

/** GitHub App installations per repository owner (case-insensitive), so a restart does not look them up again. */
export class InstallationStore {
  constructor(private readonly db: Db) {}

  get(owner: string): CachedInstallation | undefined {
    return this.db
      .prepare(`SELECT installation_id AS installationId, resolved_at AS resolvedAt FROM github_installations WHERE owner = ?`)
      .get(owner.toLowerCase()) as CachedInstallation | undefined;
  }

  set(owner: string, installationId: number, now: number): void {
    this.db
      .prepare(
        `INSERT INTO github_installations (owner, installation_id, resolved_at) VALUES (?, ?, ?)
      ON CONFLICT (owner) DO UPDATE SET installation_id = excluded.installation_id, resolved_at = excluded.resolved_at`,
      )
      .run(owner.toLowerCase(), installationId, now);
  }

  /** Forgets every owner mapped to an installation that no longer exists. */
  forgetInstallation(installationId: number): void {
    this.db.prepare(`DELETE FROM github_installations WHERE installation_id = ?`).run(installationId);
  }
}
