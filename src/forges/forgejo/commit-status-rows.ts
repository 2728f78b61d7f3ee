import type { DeploymentStore } from '../../store/deployment-store.js';
import type { ContextPhase, SentPhase } from './commit-status-plan.js';
import type { CommitStatusKey, CommitStatusRecord, CommitStatusStore } from './commit-status-publisher.js';

const keyOf = (k: CommitStatusKey) => ({ forge: 'forgejo' as const, owner: k.owner, repo: k.repo, sha: k.sha, context: k.context });

/**
 * The Forgejo publisher's records, kept through the deployments store in neutral words (one row per context on a
 * commit, written first by `DeploymentStore.insertProvisional` with its origin, so cleanup finds it). A row that
 * never held a status and has no pending mark reads as unknown: the forge is asked first.
 */
export class CommitStatusRows implements CommitStatusStore {
  constructor(private readonly deployments: DeploymentStore) {}

  get(key: CommitStatusKey): CommitStatusRecord | undefined {
    const r = this.deployments.ofContext(keyOf(key));
    if (r === undefined || (r.state === null && r.pendingState === null)) return undefined;
    return {
      phase: r.state as ContextPhase | null,
      description: r.description,
      pendingPhase: r.pendingState as SentPhase | null,
    };
  }

  /** Records a status Forgejo accepted (the store records a new success or failure as an outcome). */
  settle(key: CommitStatusKey, phase: ContextPhase | null, description: string | null, now: number): void {
    this.deployments.setContextState(keyOf(key), phase, description, now);
  }

  /** Marks a status as being sent, durably (before its POST), or clears the mark; as DeploymentStore.setPending. */
  setPending(key: CommitStatusKey, phase: SentPhase | null, now: number): void {
    this.deployments.setContextPending(keyOf(key), phase, now);
  }
}
