import type { Db } from './database.js';

/** One environment of one repository on one forge. */
export interface EnvironmentKey {
  forge: string;
  owner: string;
  repo: string;
  environment: string;
}

const WHERE = `forge = @forge AND owner = @owner AND repo = @repo AND environment = @environment`;
const params = (k: EnvironmentKey) => ({ forge: k.forge, owner: k.owner, repo: k.repo, environment: k.environment });

/**
 * The transient (preview) environments the bridge reported into, kept across restarts: a forge that
 * ends an environment when its last workload is gone (GitLab stops it) must still know, after a
 * restart between the deploy and the cleanup, that the environment was a preview. Forgotten once ended.
 */
export class TransientEnvironmentStore {
  constructor(private readonly db: Db) {}

  /** Marks an environment transient (a read first: the usual publish of a known preview writes nothing). */
  mark(k: EnvironmentKey, now: number): void {
    if (this.has(k)) return;
    this.db
      .prepare(
        `INSERT INTO transient_environments (forge, owner, repo, environment, since) VALUES (@forge, @owner, @repo, @environment, @now)
      ON CONFLICT DO NOTHING`,
      )
      .run({ ...params(k), now });
  }

  has(k: EnvironmentKey): boolean {
    return this.db.prepare(`SELECT 1 FROM transient_environments WHERE ${WHERE}`).get(params(k)) !== undefined;
  }

  /** Forgets an environment (it was ended, or found ended). */
  forget(k: EnvironmentKey): void {
    this.db.prepare(`DELETE FROM transient_environments WHERE ${WHERE}`).run(params(k));
  }
}
