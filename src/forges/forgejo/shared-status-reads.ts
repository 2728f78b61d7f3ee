/**
 * One read of a commit's statuses, shared by the contexts of that commit. A context new to the store (or
 * left pending by a crash) must learn what Forgejo shows before anything is sent; the contexts of one commit
 * (its environments, its clusters) that are new at about the same time ask once:
 * - look-ups of a commit while its read is on the way wait for that read (`latest`);
 * - a reconcile asks the look-ups of all its new contexts together, before any of them writes (`lookAhead`):
 *   each answer is taken then and kept for that context's publish;
 * - a read answers later look-ups of its commit for SHARED_READ_MS after it was asked, while the bridge has not
 *   written to the commit since (a lost database's pass adopts without writing; a dry run never writes).
 * An answer that could be stale is read again: the bridge wrote to the commit while the read was on the way or
 * after it (read anew, shared), or the read was one page and the context is not on it while older statuses
 * exist (the context's own read, through Forgejo's pages). Nothing is kept across a restart.
 */
import type { CommitStatusPort, ForgejoStatus, RecentStatuses, RepoRef } from './forgejo-types.js';

/** How long a read answers the contexts of its commit (the bridge not writing to it), and a taken answer stands. */
export const SHARED_READ_MS = 120_000;
/** Commits whose read is kept at most, and answers taken ahead (the oldest leave first). */
export const MAX_SHARED_READS = 1_000;

/** What one read says about a context: its newest status, none, or why the context must be read again. */
export type ReadAnswer = { kind: 'found'; status: ForgejoStatus } | { kind: 'none' } | { kind: 'again'; why: 'written' | 'beyond' };

/**
 * The answer a read gives `context` (compared trimmed, as Forgejo stores it); `written`: the bridge wrote to the
 * commit while the read was on the way, so it may or may not show that write. Pure.
 */
export function answerFrom(read: RecentStatuses, context: string, written: boolean): ReadAnswer {
  if (written) return { kind: 'again', why: 'written' };
  const wanted = context.trim();
  // Newest first: the first of the context is its newest.
  const hit = read.statuses.find((s) => s.context === wanted);
  if (hit !== undefined) return { kind: 'found', status: hit };
  return read.complete ? { kind: 'none' } : { kind: 'again', why: 'beyond' };
}

/** How the shared reads served look-ups so far (tests, the benchmark). */
export interface SharedReadCounts {
  /** Shared reads sent (one page each). */
  reads: number;
  /** Look-ups answered by a read another look-up asked for. */
  shared: number;
  /** Look-ups that read on their own: written while their read was on the way, or beyond its page. */
  again: number;
}

/** One context on one commit. */
export interface ContextRef extends RepoRef {
  sha: string;
  context: string;
}

interface Entry {
  askedAt: number;
  /** The bridge wrote to the commit after the read was asked, or was writing to it then. */
  written: boolean;
  /** Answered (or failed): a read written since answers no one who joins later. */
  settled: boolean;
  read: Promise<RecentStatuses>;
}

type Port = Pick<CommitStatusPort, 'recentStatuses' | 'latestStatus'>;

/** Forgejo names are case-insensitive, as is a commit id: one key per commit of one repository. */
const commitKey = (r: RepoRef, sha: string) => `${r.owner}/${r.repo}@${sha}`.toLowerCase();
const contextKey = (c: ContextRef) => `${commitKey(c, c.sha)} ${c.context.trim()}`;

/** The shared reads of one Forgejo (one publisher, one location). */
export class SharedStatusReads {
  private readonly entries = new Map<string, Entry>();
  /** Answers taken ahead by `lookAhead`, for the context's publish. */
  private readonly taken = new Map<string, { status: ForgejoStatus | null; at: number }>();
  /** Look-aheads on the way, per commit: told of each write to it. */
  private readonly watchers = new Map<string, Array<{ written: boolean }>>();
  /** POSTs on the way, per commit. */
  private readonly inFlight = new Map<string, number>();
  private readonly tally: SharedReadCounts = { reads: 0, shared: 0, again: 0 };

  constructor(
    private readonly port: Port,
    private readonly now: () => number,
    private readonly o: { ttlMs?: number; max?: number } = {},
  ) {}

  counts(): SharedReadCounts {
    return { ...this.tally };
  }

  private get ttl(): number {
    return this.o.ttlMs ?? SHARED_READ_MS;
  }

  /**
   * Looks up these contexts together (one read per commit) and keeps each answer for its context's `latest`; a
   * commit with one context among them is left to it (its read is the same one request), as are failures and
   * the answers of a commit the bridge wrote to (elsewhere) while they were asked.
   */
  async lookAhead(contexts: readonly ContextRef[]): Promise<void> {
    const watch = new Map<string, { written: boolean; contexts: ContextRef[] }>();
    for (const c of contexts) {
      const key = commitKey(c, c.sha);
      const w = watch.get(key) ?? { written: this.inFlight.has(key), contexts: [] };
      w.contexts.push(c);
      watch.set(key, w);
    }
    const several = [...watch].filter(([, w]) => w.contexts.length > 1);
    for (const [key, w] of several) this.watchers.set(key, [...(this.watchers.get(key) ?? []), w]);
    try {
      await Promise.all(
        several.flatMap(([, w]) =>
          w.contexts.map(async (c) => {
            const status = await this.latest(c, c.sha, c.context).catch(() => undefined);
            if (status === undefined || w.written) return;
            this.taken.delete(contextKey(c));
            this.taken.set(contextKey(c), { status, at: this.now() });
          }),
        ),
      );
    } finally {
      for (const [key, w] of several) {
        const left = (this.watchers.get(key) ?? []).filter((x) => x !== w);
        if (left.length > 0) this.watchers.set(key, left);
        else this.watchers.delete(key);
      }
    }
    this.prune(this.taken);
  }

  /** The newest status of `context` on the commit, or null when it has none: taken ahead, or from the commit's shared read when it can answer. */
  async latest(repo: RepoRef, sha: string, context: string): Promise<ForgejoStatus | null> {
    const ahead = this.take({ ...repo, sha, context });
    if (ahead !== undefined) return ahead.status;
    const key = commitKey(repo, sha);
    let entry = this.entries.get(key);
    // Look-ups join a read on its way (its answer says whether it holds), or a kept one the bridge has not written since.
    const joined = entry !== undefined && (!entry.written || !entry.settled) && this.now() - entry.askedAt < this.ttl;
    if (entry === undefined || !joined) entry = this.ask(key, repo, sha);
    const answer = answerFrom(await entry.read, context, entry.written);
    if (answer.kind === 'again') {
      this.tally.again++;
      return this.port.latestStatus(repo, sha, context);
    }
    if (joined) this.tally.shared++;
    return answer.kind === 'found' ? answer.status : null;
  }

  /** Call right before a status is POSTed to the context; the returned function once its answer (or failure) is in. */
  writing(repo: RepoRef, sha: string, context: string): () => void {
    const key = commitKey(repo, sha);
    const ref = { ...repo, sha, context };
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.written = true;
    for (const w of this.watchers.get(key) ?? []) w.written = true;
    this.taken.delete(contextKey(ref));
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    return () => {
      this.taken.delete(contextKey(ref));
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left > 0) this.inFlight.set(key, left);
      else this.inFlight.delete(key);
    };
  }

  private take(ref: ContextRef): { status: ForgejoStatus | null } | undefined {
    const k = contextKey(ref);
    const t = this.taken.get(k);
    this.taken.delete(k);
    return t !== undefined && this.now() - t.at < this.ttl ? t : undefined;
  }

  private ask(key: string, repo: RepoRef, sha: string): Entry {
    this.tally.reads++;
    const read = this.port.recentStatuses(repo, sha);
    const entry: Entry = { askedAt: this.now(), written: this.inFlight.has(key), settled: false, read };
    // A failed read is not kept: every look-up waiting on it fails with it, the next one asks again.
    read.then(
      () => (entry.settled = true),
      () => {
        entry.settled = true;
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.prune(this.entries);
    return entry;
  }

  /** Drops what expired and, beyond the cap, the oldest (a Map's order is the order of insertion). */
  private prune(map: Map<string, { askedAt: number } | { at: number }>): void {
    const max = this.o.max ?? MAX_SHARED_READS;
    for (const [key, e] of map) {
      const at = 'askedAt' in e ? e.askedAt : e.at;
      if (map.size <= max && this.now() - at < this.ttl) break;
      map.delete(key);
    }
  }
}
