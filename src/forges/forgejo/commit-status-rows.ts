import { durably, type Db } from '../../store/database.js';
import { recordOutcome } from '../../store/outcome-events.js';
import type { ContextPhase, SentPhase } from './commit-status-plan.js';
import type { CommitStatusKey, CommitStatusRecord, CommitStatusStore } from './commit-status-publisher.js';

const KEY = `forge = 'forgejo' AND owner = @owner AND repo = @repo AND sha = @sha AND context = @context`;
const keyParams = (k: CommitStatusKey) => ({ owner: k.owner, repo: k.repo, sha: k.sha, context: k.context });

interface Raw {
  state: ContextPhase | null;
  pending_state: SentPhase | null;
  description: string | null;
}

/**
 * The Forgejo publisher's records, kept in the deployments table in neutral words (one row per context on a commit,
 * written first by `DeploymentStore.insertProvisional` with its origin, so cleanup finds it). A row
 * that never held a status and has no pending mark reads as unknown: the forge is asked first.
 */
export class CommitStatusRows implements CommitStatusStore {
  constructor(private readonly db: Db) {}

  get(key: CommitStatusKey): CommitStatusRecord | undefined {
    const r = this.db.prepare(`SELECT state, pending_state, description FROM deployments WHERE ${KEY}`).get(keyParams(key)) as
      Raw | undefined;
    if (r === undefined || (r.state === null && r.pending_state === null)) return undefined;
    return {
      phase: r.state,
      description: r.description,
      pendingPhase: r.pending_state,
    };
  }

  /** Records a status Forgejo accepted; a new success or failure is also an outcome recorded (outcome-events.ts). */
  settle(key: CommitStatusKey, phase: ContextPhase | null, description: string | null, now: number): void {
    this.db.transaction(() => {
      recordOutcome(this.db, KEY, keyParams(key), phase, now);
      this.update(key, 'state = @state, pending_state = NULL, description = @description', {
        state: phase,
        description,
        now,
      });
    })();
  }

  /** Marks a status as being sent, durably (before its POST), or clears the mark; as DeploymentStore.setPending. */
  setPending(key: CommitStatusKey, phase: SentPhase | null, now: number): void {
    const mark = () => this.update(key, 'pending_state = @pending', { pending: phase, now });
    if (phase === null) mark();
    else durably(this.db, mark);
  }

  private update(key: CommitStatusKey, set: string, values: Record<string, unknown>): void {
    const done = this.db.prepare(`UPDATE deployments SET ${set}, updated_at = @now WHERE ${KEY}`).run({ ...keyParams(key), ...values });
    if (done.changes === 0) throw new Error(`no deployment row for status context "${key.context}" on ${key.owner}/${key.repo}@${key.sha}`);
  }
}
