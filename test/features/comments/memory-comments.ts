/** An in-memory forge's pull request comments (the CommentsPort), with crash points and refusals, for the keeper's tests. */
import {
  CommentRefused,
  type CommentRepo,
  type CommentsPort,
  type ForgeComment,
  type PullRequestInfo,
} from '../../../src/forges/comments-port.js';

/** Thrown where the process "dies": the keeper sees a failure, the test starts a new keeper on the same database. */
export class Crash extends Error {}

export type CrashPoint = 'before-create' | 'after-create' | 'before-edit' | 'after-edit';

export class MemoryComments implements CommentsPort {
  comments: Array<ForgeComment & { pr: number; author: string }> = [];
  pullRequests = new Map<number, PullRequestInfo>();
  readonly maxBodyChars = 65_536;
  writes = 0;
  reads = 0;
  /** Commit checks asked (counted apart from `reads`). */
  checks = 0;
  /** Commits that are not on a pull request's branch, by pull request: every other commit is. */
  foreign = new Map<number, Set<string>>();
  crashAt: CrashPoint | undefined;
  /** Thrown by every request while set. */
  refuse: CommentRefused | undefined;
  private nextId = 100;

  constructor(readonly self = 'bridge[bot]') {}

  private crash(point: CrashPoint): void {
    if (this.crashAt !== point) return;
    this.crashAt = undefined;
    throw new Crash(point);
  }

  pullRequest(_repo: CommentRepo, pr: number): Promise<PullRequestInfo> {
    this.reads++;
    if (this.refuse) return Promise.reject(this.refuse);
    const info = this.pullRequests.get(pr);
    return info ? Promise.resolve(info) : Promise.reject(new CommentRefused(`pull request #${pr} does not exist`));
  }

  listOwn(_repo: CommentRepo, pr: number): Promise<ForgeComment[]> {
    this.reads++;
    return Promise.resolve(this.comments.filter((c) => c.pr === pr && c.author === this.self).map(({ id, body }) => ({ id, body })));
  }

  create(_repo: CommentRepo, pr: number, body: string): Promise<number> {
    if (this.refuse) return Promise.reject(this.refuse);
    this.crash('before-create');
    this.writes++;
    const id = this.nextId++;
    this.comments.push({ id, pr, body, author: this.self });
    this.crash('after-create');
    return Promise.resolve(id);
  }

  edit(_repo: CommentRepo, _pr: number, id: number, body: string): Promise<boolean> {
    if (this.refuse) return Promise.reject(this.refuse);
    this.crash('before-edit');
    const c = this.comments.find((x) => x.id === id);
    if (!c) return Promise.resolve(false);
    this.writes++;
    c.body = body;
    this.crash('after-edit');
    return Promise.resolve(true);
  }

  commitOnPullRequest(_repo: CommentRepo, pr: number, sha: string): Promise<string | undefined> {
    this.checks++;
    if (this.refuse) return Promise.reject(this.refuse);
    return Promise.resolve(this.foreign.get(pr)?.has(sha) === true ? `commit ${sha.slice(0, 7)} is not on pull request #${pr}` : undefined);
  }

  /** Open pull requests by their head commit (PULL_REQUEST_LOOKUP). */
  heads = new Map<string, number>();

  pullRequestOfCommit(_repo: CommentRepo, sha: string): Promise<number | null> {
    this.reads++;
    return Promise.resolve(this.heads.get(sha) ?? null);
  }

  bodies(pr: number): string[] {
    return this.comments.filter((c) => c.pr === pr).map((c) => c.body);
  }
}
