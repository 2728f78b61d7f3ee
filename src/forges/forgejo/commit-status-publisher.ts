/**
 * Brings one commit-status context to the desired state, crash-safely: each status is marked
 * pending in storage before its POST and recorded after its answer. A context the store does not
 * know yet, or one left with a pending mark (the process died between the mark and the record),
 * is read back from the forge first: the commit's newest statuses, one read shared by the commit's
 * contexts (shared-status-reads.ts), then only what is still missing is sent. So a status is never sent
 * twice, and never missed.
 */
import type { Logger } from 'pino';
import { planCommitStatuses, phaseOf, statusBody, type ContextPhase, type ForgeDesired, type SentPhase } from './commit-status-plan.js';
import { restateInProgress } from '../../lifecycle/status-plan.js';
import { forgeRefused } from '../../common/errors.js';
import type { CommitStatusPort, ForgejoStatus } from './forgejo-types.js';
import { SharedStatusReads } from './shared-status-reads.js';

/** One context on one commit: the storage key. */
export interface CommitStatusKey {
  owner: string;
  repo: string;
  sha: string;
  context: string;
}

/** What the bridge remembers about one context on one commit. */
export interface CommitStatusRecord {
  /** What the forge shows, as far as the bridge knows; null: nothing yet. */
  phase: ContextPhase | null;
  description: string | null;
  /** Set right before a POST; cleared when its answer is recorded, or the forge refused it. */
  pendingPhase: SentPhase | null;
}

/**
 * Storage of commit-status records: `CommitStatusRows`, one row per context on a commit in the
 * `deployments` table (with the origin columns cleanup needs, like any deployment), in neutral words.
 */
export interface CommitStatusStore {
  get(key: CommitStatusKey): CommitStatusRecord | undefined;
  /** Creates or replaces the record with a settled phase and no pending mark. */
  settle(key: CommitStatusKey, phase: ContextPhase | null, description: string | null, now: number): void;
  /** Sets (before a POST) or clears (after a refusal) the pending mark of an existing record. */
  setPending(key: CommitStatusKey, phase: SentPhase | null, now: number): void;
}

/** The context to publish, and where its status links to (omitted for a deployment that is gone). */
export interface CommitStatusTarget extends CommitStatusKey {
  targetUrl?: string;
}

/** What one publish did, for logs, metrics and tests. */
export interface CommitStatusResult {
  sent: SentPhase[];
  /** True when the forge was read first (a context new to the store, or a pending mark). */
  read: boolean;
}

export interface CommitStatusPublisherDeps {
  forge: CommitStatusPort;
  store: CommitStatusStore;
  log: Logger;
  now: () => number;
  /** Called with each status Forgejo accepted (publish and "Deployment gone" alike): the metric's one count. */
  onSent?: (phase: SentPhase) => void;
}

export class CommitStatusPublisher {
  /** The reads of this Forgejo, shared by the contexts of one commit. */
  readonly reads: SharedStatusReads;

  constructor(private readonly deps: CommitStatusPublisherDeps) {
    this.reads = new SharedStatusReads(deps.forge, deps.now);
  }

  /**
   * Looks up, together, the contexts among `keys` that a publish would read first (new to the store, or pending):
   * one read per commit with several of them, before any writes, each answer kept for its context's publish.
   * Never throws: a look-up that failed is the publish's own again.
   */
  async lookAhead(keys: readonly CommitStatusKey[]): Promise<void> {
    const wanted = keys.filter((k) => {
      const record = this.deps.store.get(k);
      return record === undefined || record.pendingPhase !== null;
    });
    await this.reads.lookAhead(wanted);
  }

  /** Sends what `desired` still needs on this context (often nothing); `text` becomes the description. */
  async publish(target: CommitStatusTarget, desired: ForgeDesired, text: string): Promise<CommitStatusResult> {
    let record = this.deps.store.get(target);
    const read = record === undefined || record.pendingPhase !== null;
    if (read) record = await this.readBack(target, record);
    const sent: SentPhase[] = [];
    const current = record?.phase ?? null;
    const again = desired !== 'gone' && current !== null && restateInProgress(current, record?.description ?? null, desired, text);
    for (const phase of again ? (['in_progress'] as const) : planCommitStatuses(current, desired)) {
      await this.send(target, phase, text);
      sent.push(phase);
    }
    return { sent, read };
  }

  /**
   * Takes what the forge shows for the context as the truth: the newest status, or (none) what the
   * store knew. A pending mark is thereby settled either way: its status arrived, or it never left.
   */
  private async readBack(key: CommitStatusKey, known: CommitStatusRecord | undefined): Promise<CommitStatusRecord> {
    const { store, now, log } = this.deps;
    const latest = await this.reads.latest({ owner: key.owner, repo: key.repo }, key.sha, key.context);
    const phase = latest === null ? (known?.phase ?? null) : phaseOf(latest);
    const description = latest === null ? (known?.description ?? null) : latest.description;
    store.settle(key, phase, description, now());
    if (known !== undefined && known.pendingPhase !== null)
      log.info({ ...fields(key), pending: known.pendingPhase, found: phase }, 'settled a commit status left pending by a restart');
    return { phase, description, pendingPhase: null };
  }

  private async send(target: CommitStatusTarget, phase: SentPhase, text: string): Promise<void> {
    const { forge, store, now, log } = this.deps;
    const body = statusBody(phase, target.context, text, target.targetUrl);
    store.setPending(target, phase, now());
    const repo = { owner: target.owner, repo: target.repo };
    // A read of this commit on the way or kept, or asked before the answer, no longer answers: this write may or may not be in it.
    const written = this.reads.writing(repo, target.sha, target.context);
    let sent: ForgejoStatus;
    try {
      sent = await forge.createStatus(repo, target.sha, body);
    } catch (err) {
      // A 4xx answer: Forgejo stored nothing, so nothing is left to settle. Anything else stays pending.
      if (forgeRefused(err)) store.setPending(target, null, now());
      throw err;
    } finally {
      written();
    }
    store.settle(target, phase, body.description, now());
    this.deps.onSent?.(phase);
    // A dry run's pretend statuses have negative ids; its "would send" line was logged already.
    if (sent.id > 0) log.info({ ...fields(target), phase, state: body.state }, 'commit status sent');
  }
}

const fields = (k: CommitStatusKey) => ({ owner: k.owner, repo: k.repo, sha: k.sha, context: k.context });
