/**
 * The forge-neutral seam of pull request comments: what the comment keeper (features/comments/pr-comments.ts) needs of
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
  /** The longest comment the forge takes, in characters (GitHub 65,536; GitLab 1,000,000; Forgejo: a bound of ours). */
  readonly maxBodyChars: number;
  /** Whether the pull request is open and unlocked (a closed one gets no new comment). */
  pullRequest(repo: CommentRepo, pr: number): Promise<PullRequestInfo>;
  /** The comments the bridge's own identity wrote on the pull request, every page up to LIST_CAP (beyond it: ListCapped). */
  listOwn(repo: CommentRepo, pr: number): Promise<ForgeComment[]>;
  /** Creates a comment; its id. */
  create(repo: CommentRepo, pr: number, body: string): Promise<number>;
  /** Edits a comment in place; false when it no longer exists (deleted by a person). */
  edit(repo: CommentRepo, pr: number, id: number, body: string): Promise<boolean>;
  /**
   * Why the commit `sha` is not the pull request's (its head, or a commit on its head branch), or undefined when it
   * is: one read, so a workload cannot name someone else's pull request for its comment row.
   */
  commitOnPullRequest(repo: CommentRepo, pr: number, sha: string): Promise<string | undefined>;
  /** The open pull request whose head is `sha`, or null (`PULL_REQUEST_LOOKUP`); absent on a forge that cannot tell (Forgejo, Gitea). */
  pullRequestOfCommit?(repo: CommentRepo, sha: string): Promise<number | null>;
}

/** An answer that retrying will not change: the pull request is missing or locked, or a permission is missing. */
export class CommentRefused extends Error {
  override readonly name: string = 'CommentRefused';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/**
 * How much of a pull request's comment list is read, on every forge: a list longer than this (a pull request with
 * thousands of comments, or a forge that serves page after page) is not followed further. 10 pages of 100.
 */
export const LIST_CAP = { pages: 10, items: 1_000 } as const;

/**
 * The list went past LIST_CAP: the bridge cannot tell whether its comment is further on, so it writes none rather
 * than risk a second one (a refusal: logged once, counted as `list_capped`, its reason in /state).
 */
export class ListCapped extends CommentRefused {
  override readonly name: string = 'ListCapped';
  constructor(what: string, read: { pages: number; items: number }) {
    super(
      `${what}: stopped after ${read.pages} page(s) and ${read.items} comments (the cap is ${LIST_CAP.pages} pages, ${LIST_CAP.items} comments): no comment is written, lest it be a second one`,
    );
  }
}
