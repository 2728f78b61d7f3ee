/**
 * GitHub's pull request comments (issue comments: a pull request is an issue), through the same clients as the
 * deployments: every request gated by the credential scope's pause and counted against its budget, every
 * write spaced by the shared WriteSpacing. An App asks for a token of its own for them (`pull_requests: write`),
 * so an installation without that permission loses its comments, not its deployments.
 */
import type { Octokit } from '@octokit/core';
import { CommentRefused, LIST_CAP, ListCapped, type CommentRepo, type CommentsPort, type ForgeComment } from '../comments-port.js';
import { GitHubCallError, type CommentOperation } from './call-error.js';
import { callGitHub, GITHUB_TIMEOUT_MS } from './octokit-factory.js';
import { COMMENT_CLASS, type Turn } from './write-budget.js';

/** Every comment request's place in the write budget: the comment class, one line per repository. */
const turnOf = (r: CommentRepo): Turn => ({ key: `comment:${r.owner}/${r.repo}`, class: COMMENT_CLASS, final: true });

/** What an installation token for comments may do (least privilege). */
export const COMMENT_TOKEN_PERMISSIONS = { pull_requests: 'write', metadata: 'read' } as const;

/** Whose comments are the bridge's: a token's user (by login), or an App (by the App that performed them). */
export type CommentAuthor = { kind: 'token'; login: () => Promise<string> } | { kind: 'app'; appId: number };

interface GhIssue {
  state: string;
  locked: boolean;
  pull_request?: unknown;
}

interface GhPull {
  number: number;
  state: string;
  head: { sha: string };
}

interface GhComment {
  id: number;
  body?: string;
  user: { login: string } | null;
  performed_via_github_app?: { id: number } | null;
}

/** The number of comments asked for per page (GitHub's most). */
const PER_PAGE = 100;
/** GitHub refuses a comment longer than this many characters. */
export const GITHUB_MAX_COMMENT_CHARS = 65_536;

/** The reason a GitHub refusal will not change on retry, or undefined (an outage, a rate limit, bad credentials: tried again). */
function refusalOf(err: unknown, what: string, appAuth: boolean): string | undefined {
  if (!(err instanceof GitHubCallError) || err.status === undefined || err.retryAt !== undefined) return undefined;
  const said = err.githubMessage ?? err.message;
  if (err.status === 404 || err.status === 410) return `${what}: not found (${err.status} ${said})`;
  if (err.status === 403 && /locked/i.test(said)) return `${what}: the conversation is locked`;
  if (err.status === 403)
    return `${what}: ${said}: ${appAuth ? 'the GitHub App needs pull_requests: write (or issues: write)' : 'the token needs write access to the repository'}`;
  if (err.status === 422) return `${what}: GitHub refused it (${said})`;
  return undefined;
}

/** The CommentsPort over the GitHub client of each repository (the token's, or the repository's App installation). */
export function githubComments(
  clientFor: (r: CommentRepo) => Promise<Octokit>,
  author: CommentAuthor,
  timeoutMs = GITHUB_TIMEOUT_MS,
): CommentsPort {
  const call = async <T>(
    op: CommentOperation,
    r: CommentRepo,
    what: string,
    fn: (o: Octokit, signal: AbortSignal) => Promise<{ data: unknown }>,
  ) => {
    try {
      const octokit = await clientFor(r);
      return await callGitHub<T>(op, what, (signal) => fn(octokit, signal), timeoutMs);
    } catch (err) {
      const reason = refusalOf(err, what, author.kind === 'app');
      throw reason === undefined ? err : new CommentRefused(reason, { cause: err });
    }
  };
  /** `GET …/commits/{sha}/pulls`, its first page (a commit on more than 100 open pull requests is not looked at further). */
  const pullsOf = (r: CommentRepo, sha: string) =>
    call<GhPull[]>('pullRequest', r, `find the pull requests of ${r.owner}/${r.repo}@${sha.slice(0, 7)}`, (o, signal) =>
      o.request('GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls', {
        ...r,
        commit_sha: sha,
        per_page: PER_PAGE,
        request: { signal, turn: turnOf(r) },
      }),
    );
  const own = async (c: GhComment): Promise<boolean> =>
    author.kind === 'app' ? c.performed_via_github_app?.id === author.appId : c.user?.login === (await author.login());
  return {
    maxBodyChars: GITHUB_MAX_COMMENT_CHARS,
    async pullRequest(r, pr) {
      const issue = await call<GhIssue>('pullRequest', r, `read pull request #${pr} of ${r.owner}/${r.repo}`, (o, signal) =>
        o.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { ...r, issue_number: pr, request: { signal, turn: turnOf(r) } }),
      );
      if (issue.pull_request === undefined) throw new CommentRefused(`#${pr} of ${r.owner}/${r.repo} is an issue, not a pull request`);
      return { open: issue.state === 'open', locked: issue.locked };
    },
    async listOwn(r, pr) {
      const what = `list the comments of #${pr} in ${r.owner}/${r.repo}`;
      const out: ForgeComment[] = [];
      let items = 0;
      for (let page = 1; ; page++) {
        const comments = await call<GhComment[]>('listComments', r, what, (o, signal) =>
          o.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
            ...r,
            issue_number: pr,
            per_page: PER_PAGE,
            page,
            request: { signal, turn: turnOf(r) },
          }),
        );
        items += comments.length;
        // A page larger than asked, or more pages than the cap: not followed further (a hostile or runaway list).
        if (items > LIST_CAP.items) throw new ListCapped(what, { pages: page, items });
        for (const c of comments) if (await own(c)) out.push({ id: c.id, body: c.body ?? '' });
        if (comments.length < PER_PAGE) return out;
        if (page >= LIST_CAP.pages) throw new ListCapped(what, { pages: page, items });
      }
    },
    async commitOnPullRequest(r, pr, sha) {
      // The pull requests of a commit: the open ones with it on their head branch (or the merged one that brought it in).
      const pulls = await pullsOf(r, sha);
      if (pulls.some((p) => p.number === pr)) return undefined;
      return `commit ${sha.slice(0, 7)} is not on pull request #${pr} of ${r.owner}/${r.repo}: GitHub names ${pulls.length === 0 ? 'no pull request' : pulls.map((p) => `#${p.number}`).join(', ')} with it`;
    },
    async pullRequestOfCommit(r, sha) {
      // Open ones whose head is the commit itself (the list also names pull requests that merely contain it).
      const heads = (await pullsOf(r, sha)).filter((p) => p.state === 'open' && p.head.sha === sha).map((p) => p.number);
      return heads.length > 0 ? Math.min(...heads) : null;
    },
    async create(r, pr, body) {
      const c = await call<GhComment>('createComment', r, `comment on #${pr} in ${r.owner}/${r.repo}`, (o, signal) =>
        o.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...r,
          issue_number: pr,
          body,
          request: { signal, turn: turnOf(r) },
        }),
      );
      return c.id;
    },
    async edit(r, pr, id, body) {
      try {
        await call('editComment', r, `edit comment ${id} on #${pr} in ${r.owner}/${r.repo}`, (o, signal) =>
          o.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
            ...r,
            comment_id: id,
            body,
            request: { signal, turn: turnOf(r) },
          }),
        );
        return true;
      } catch (err) {
        // Deleted by a person: the keeper makes it again (after a read of the pull request).
        if (err instanceof CommentRefused && err.cause instanceof GitHubCallError && err.cause.status === 404) return false;
        throw err;
      }
    },
  };
}

/** The token's user, asked once (`GET /user`) and remembered. */
export function tokenLogin(octokit: Octokit, timeoutMs = GITHUB_TIMEOUT_MS): () => Promise<string> {
  let login: Promise<string> | undefined;
  return () => {
    login ??= callGitHub<{ login: string }>(
      'whoami',
      'find the token user (GET /user)',
      (signal) => octokit.request('GET /user', { request: { signal } }),
      timeoutMs,
    ).then(
      (u) => u.login,
      (err: unknown) => {
        login = undefined;
        throw err;
      },
    );
    return login;
  };
}
