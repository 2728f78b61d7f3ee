/**
 * CommitStatusStore in memory, with the semantics the SQLite table will have: records are copied in
 * and out (nothing shared with the caller), and they outlive the publisher (a "restart" keeps the store).
 */
import type { CommitStatusKey, CommitStatusRecord, CommitStatusStore } from '../../src/forges/forgejo/commit-status-publisher.js';
import type { ContextPhase, SentPhase } from '../../src/forges/forgejo/commit-status-plan.js';

const keyOf = (k: CommitStatusKey) => JSON.stringify([k.owner.toLowerCase(), k.repo.toLowerCase(), k.sha, k.context]);

export class MemoryStatusStore implements CommitStatusStore {
  private readonly rows = new Map<string, CommitStatusRecord & { updatedAt: number }>();

  get(key: CommitStatusKey): CommitStatusRecord | undefined {
    const row = this.rows.get(keyOf(key));
    return row === undefined ? undefined : { phase: row.phase, description: row.description, pendingPhase: row.pendingPhase };
  }

  settle(key: CommitStatusKey, phase: ContextPhase | null, description: string | null, now: number): void {
    this.rows.set(keyOf(key), { phase, description, pendingPhase: null, updatedAt: now });
  }

  setPending(key: CommitStatusKey, phase: SentPhase | null, now: number): void {
    const row = this.rows.get(keyOf(key));
    if (row === undefined) throw new Error(`setPending on a record that does not exist: ${keyOf(key)}`);
    this.rows.set(keyOf(key), { ...row, pendingPhase: phase, updatedAt: now });
  }
}
