/**
 * The simulator's memory: commit statuses per repository and commit, with Forgejo's rules: the
 * index counts up per commit (1, 2, …); context, description and target_url are stored trimmed;
 * the lists sort the way `CommitStatusOptions.ToOrders` does.
 */
import type { StoredStatus } from './wire.js';

/** Forgejo's priorities when it combines a commit's statuses (`commitStatusPriorities`): lower is worse. */
const PRIORITY: Record<string, number> = { error: 0, failure: 1, warning: 2, pending: 3, success: 4 };

/** Case-insensitive repository key, as Forgejo treats owner and name. */
export function repoKey(owner: string, repo: string): string {
  return `${owner}/${repo}`.toLowerCase();
}

export interface NewStatus {
  state: string;
  context?: string;
  description?: string;
  target_url?: string;
}

/** `sort` values of the list endpoints, as `ToOrders` reads them (note: `leastindex` is index DESC). */
const ORDERS: Record<string, (a: StoredStatus, b: StoredStatus) => number> = {
  oldest: (a, b) => a.createdUnix - b.createdUnix || a.index - b.index,
  recentupdate: (a, b) => b.createdUnix - a.createdUnix || a.index - b.index,
  leastupdate: (a, b) => a.createdUnix - b.createdUnix || a.index - b.index,
  leastindex: (a, b) => b.index - a.index,
  highestindex: (a, b) => a.index - b.index,
};
/**
 * The default, `created_unix DESC`: whole seconds, so statuses sent within one second tie. A
 * database may return ties in any order; the simulator returns them oldest first, the unhelpful one.
 */
const BY_CREATION = (a: StoredStatus, b: StoredStatus) => b.createdUnix - a.createdUnix || a.index - b.index;

export class StatusBook {
  private readonly byCommit = new Map<string, StoredStatus[]>();

  add(owner: string, repo: string, sha: string, input: NewStatus, creator: string, nowMs: number): StoredStatus {
    const key = `${repoKey(owner, repo)}@${sha}`;
    const list = this.byCommit.get(key) ?? [];
    this.byCommit.set(key, list);
    const status: StoredStatus = {
      index: list.length + 1,
      state: input.state,
      context: (input.context ?? '').trim(),
      description: (input.description ?? '').trim(),
      target_url: (input.target_url ?? '').trim(),
      createdUnix: Math.floor(nowMs / 1000),
      creator,
    };
    list.push(status);
    return { ...status };
  }

  /** A commit's statuses, oldest first (copies). */
  all(owner: string, repo: string, sha: string): StoredStatus[] {
    return (this.byCommit.get(`${repoKey(owner, repo)}@${sha}`) ?? []).map((s) => ({ ...s }));
  }

  /** A commit's statuses in the order `sort` asks for, optionally only one state. */
  list(owner: string, repo: string, sha: string, sort: string | undefined, state: string | undefined): StoredStatus[] {
    const order = (sort !== undefined ? ORDERS[sort] : undefined) ?? BY_CREATION;
    const states = Object.keys(PRIORITY);
    return this.all(owner, repo, sha)
      .filter((s) => state === undefined || !states.includes(state) || s.state === state)
      .sort(order);
  }

  /** The newest status of each context, newest first (Forgejo's `GetLatestCommitStatus`). */
  latestPerContext(owner: string, repo: string, sha: string): StoredStatus[] {
    const newest = new Map<string, StoredStatus>();
    for (const s of this.all(owner, repo, sha).reverse()) if (!newest.has(s.context)) newest.set(s.context, s);
    return [...newest.values()];
  }

  clear(): void {
    this.byCommit.clear();
  }
}

/** The combined state of statuses listed newest first: the worst, the older one on a tie (Forgejo's `CalcCommitStatus`). */
export function worstState(statuses: StoredStatus[]): string | undefined {
  let worst = statuses[0];
  for (const s of statuses.slice(1)) if ((PRIORITY[s.state] ?? Infinity) <= (PRIORITY[worst?.state ?? ''] ?? -Infinity)) worst = s;
  return worst?.state;
}
