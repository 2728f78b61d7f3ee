/**
 * One read of a commit's statuses, shared by the contexts of that commit. A context new to the store (or
 * left pending by a crash) must learn what Forgejo shows before anything is sent; the contexts of one commit
 * (its environments, its clusters) that are new at about the same time ask once: look-ups of a commit while
 * its read is on the way wait for that read, and a read answers the commit's contexts for SHARED_READ_MS
 * after it was asked. A context whose answer could be stale reads on its own, as before:
 * - the bridge wrote to that context after the read was asked (or was writing to it then): the read may
 *   predate the write (the bridge's writes to other contexts change nothing of this one's answer);
 * - the read was one page and the context is not in it while older statuses exist (`complete` false).
 * Only this process writes its contexts (each names the bridge's cluster), so its own writes are the only
 * change a kept read can miss. Nothing is kept across a restart: a new process reads again.
 */
import type { CommitStatusPort, ForgejoStatus, RecentStatuses, RepoRef } from './forgejo-types.js';

/** How long a read answers the contexts of its commit, from the moment it was asked. */
export const SHARED_READ_MS = 120_000;
/** Commits whose read is kept at most (the oldest leaves first): about 1,000 small pages. */
export const MAX_SHARED_READS = 1_000;

/** What one shared read says about a context: its newest status, none, or why it must be read on its own. */
export type ReadAnswer = { kind: 'found'; status: ForgejoStatus } | { kind: 'none' } | { kind: 'again'; why: 'written' | 'beyond' };

/**
 * The answer a read gives `context`, knowing which contexts the bridge wrote to since the read was asked. Pure.
 * Contexts are compared trimmed, as Forgejo stores them.
 */
export function answerFrom(read: RecentStatuses, written: ReadonlySet<string>, context: string): ReadAnswer {
  const wanted = context.trim();
  if (written.has(wanted)) return { kind: 'again', why: 'written' };
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
  /** Look-ups that read on their own: written since the read, or beyond its page. */
  again: number;
}

interface Entry {
  askedAt: number;
  /** Contexts (trimmed) the bridge wrote to, or was writing to, since the read was asked. */
  written: Set<string>;
  read: Promise<RecentStatuses>;
}

type Port = Pick<CommitStatusPort, 'recentStatuses' | 'latestStatus'>;

/** Forgejo names are case-insensitive, as is a commit id: one key per commit of one repository. */
const commitKey = (r: RepoRef, sha: string) => `${r.owner}/${r.repo}@${sha}`.toLowerCase();

/** The shared reads of one Forgejo (one publisher, one location). */
export class SharedStatusReads {
  private readonly entries = new Map<string, Entry>();
  /** POSTs on the way, per commit and context. */
  private readonly inFlight = new Map<string, Map<string, number>>();
  private readonly tally: SharedReadCounts = { reads: 0, shared: 0, again: 0 };

  constructor(
    private readonly port: Port,
    private readonly now: () => number,
    private readonly o: { ttlMs?: number; max?: number } = {},
  ) {}

  counts(): SharedReadCounts {
    return { ...this.tally };
  }

  /** The newest status of `context` on the commit, or null when it has none: from the commit's shared read when it can answer. */
  async latest(repo: RepoRef, sha: string, context: string): Promise<ForgejoStatus | null> {
    const key = commitKey(repo, sha);
    let entry = this.entries.get(key);
    const joined = entry !== undefined && this.now() - entry.askedAt < (this.o.ttlMs ?? SHARED_READ_MS);
    if (entry === undefined || !joined) entry = this.ask(key, repo, sha);
    const answer = answerFrom(await entry.read, entry.written, context);
    if (answer.kind === 'again') {
      this.tally.again++;
      return this.port.latestStatus(repo, sha, context);
    }
    if (joined) this.tally.shared++;
    return answer.kind === 'found' ? answer.status : null;
  }

  /** Call right before a status is POSTed to `context`; the returned function once its answer (or failure) is in. */
  writing(repo: RepoRef, sha: string, context: string): () => void {
    const key = commitKey(repo, sha);
    const c = context.trim();
    this.entries.get(key)?.written.add(c);
    const mine = this.inFlight.get(key) ?? new Map<string, number>();
    this.inFlight.set(key, mine);
    mine.set(c, (mine.get(c) ?? 0) + 1);
    return () => {
      const left = (mine.get(c) ?? 1) - 1;
      if (left > 0) mine.set(c, left);
      else mine.delete(c);
      if (mine.size === 0 && this.inFlight.get(key) === mine) this.inFlight.delete(key);
    };
  }

  private ask(key: string, repo: RepoRef, sha: string): Entry {
    this.tally.reads++;
    const entry: Entry = {
      askedAt: this.now(),
      written: new Set(this.inFlight.get(key)?.keys()),
      read: this.port.recentStatuses(repo, sha),
    };
    // A failed read is not kept: every look-up waiting on it fails with it, the next one asks again.
    entry.read.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.prune();
    return entry;
  }

  /** Drops expired reads and, beyond the cap, the oldest (Map order is the order they were asked in). */
  private prune(): void {
    const ttl = this.o.ttlMs ?? SHARED_READ_MS;
    const max = this.o.max ?? MAX_SHARED_READS;
    for (const [key, e] of this.entries) {
      if (this.entries.size <= max && this.now() - e.askedAt < ttl) break;
      this.entries.delete(key);
    }
  }
}
