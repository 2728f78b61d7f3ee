/**
 * The forge-neutral seam of pull request comments: what the comment keeper (reconcile/pr-comments.ts) needs of
 * a forge. Each forge implements it in its own folder (GitHub and Forgejo: issue comments; GitLab: merge request notes).
 */

/** A repository, as the forge names it. */
export interface CommentRepo {
  owner: string;
  repo: string;
}

/** A pull request as far as commenting goes. */
export interface PullRequestInfo {
  open: boolean;
  locked: boolean;
}

/** One comment on a pull request: its id and text. */
export interface ForgeComment {
  id: number;
  body: string;
}

/** A forge's pull request comments; a final refusal (missing, locked, no permission) is thrown as CommentRefused. */
export interface CommentsPort {
  /** Whether the pull request is open and unlocked (a closed one gets no new comment). */
  pullRequest(repo: CommentRepo, pr: number): Promise<PullRequestInfo>;
  /** The comments the bridge's own identity wrote on the pull request, every page. */
  listOwn(repo: CommentRepo, pr: number): Promise<ForgeComment[]>;
  /** Creates a comment; its id. */
  create(repo: CommentRepo, pr: number, body: string): Promise<number>;
  /** Edits a comment in place; false when it no longer exists (deleted by a person). */
  edit(repo: CommentRepo, pr: number, id: number, body: string): Promise<boolean>;
  /** The open pull request whose head is `sha`, or null (`PULL_REQUEST_LOOKUP`); absent on a forge that cannot tell (Forgejo, Gitea). */
  pullRequestOfCommit?(repo: CommentRepo, sha: string): Promise<number | null>;
}

/** An answer that retrying will not change: the pull request is missing or locked, or a permission is missing. */
export class CommentRefused extends Error {
  override readonly name = 'CommentRefused';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}
