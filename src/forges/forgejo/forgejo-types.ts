/** Forgejo's commit-status objects as they travel on the wire (swagger `CreateStatusOption`, `CommitStatus`). */

/** Forgejo's five commit-status states (`modules/structs/commit_status.go`; the swagger has no enum). */
export type ForgejoState = 'pending' | 'success' | 'error' | 'failure' | 'warning';

/** The request body: note `state`, where the answer says `status`. */
export interface CreateStatusBody {
  state: ForgejoState;
  context: string;
  description: string;
  /** Left out for a status that must not link anywhere (a deployment that is gone). */
  target_url?: string;
}

/** The subset of a `CommitStatus` answer the bridge reads. Forgejo trims context, description and target_url. */
export interface ForgejoStatus {
  /** The status's index on its commit (1, 2, …), not a global id. */
  id: number;
  status: ForgejoState;
  context: string;
  description: string;
  target_url: string;
  created_at: string;
}

export interface RepoRef {
  owner: string;
  repo: string;
}

/** A commit's newest statuses (every context), as one read found them. */
export interface RecentStatuses {
  /** Newest first. */
  statuses: ForgejoStatus[];
  /** True when no older status exists: a context not among `statuses` has none on the commit. */
  complete: boolean;
}

/** The commit-status calls a publisher needs; the Forgejo client in production, a wrapper around it in crash tests. */
export interface CommitStatusPort {
  createStatus(repo: RepoRef, sha: string, body: CreateStatusBody): Promise<ForgejoStatus>;
  /** The newest status of one context on a commit, or null when it has none. */
  latestStatus(repo: RepoRef, sha: string, context: string): Promise<ForgejoStatus | null>;
  /** One read of a commit's newest statuses, every context (one page): what the contexts of a commit share. */
  recentStatuses(repo: RepoRef, sha: string): Promise<RecentStatuses>;
}
