/**
 * GitLab's pull request comments: merge request notes, through the same client and gate as the deployments
 * (paused while GitLab asked to wait, a 401 pauses the side, every request counted in /metrics). The bridge's own
 * notes are those whose author is the token's user (`GET /user`, from the credential check), read on every page.
 * The token needs the `api` scope and a role that may comment (Reporter or above; a locked discussion: a member).
 */
import { ForgeError } from '../../common/errors.js';
import { CommentRefused, LIST_CAP, ListCapped, type CommentRepo, type CommentsPort, type ForgeComment } from '../comments-port.js';
import { nextPageOf, PAGE_SIZE, type GitLabClient } from './gitlab-client.js';
import type { GitLabOperation } from './gitlab-error.js';
import type { GitLabAnswer, GitLabRequest } from './gitlab-http.js';
import type { GitLabUser } from './gitlab-types.js';
import { projectId } from './gitlab-url.js';

interface GlMergeRequest {
  iid: number;
  state: string;
  sha: string;
  discussion_locked?: boolean | null;
}

interface GlNote {
  id: number;
  body?: string;
  system?: boolean;
  author?: { username?: string } | null;
}

/** GitLab refuses a note longer than this many characters. */
export const GITLAB_MAX_NOTE_CHARS = 1_000_000;

const pathOf = (r: CommentRepo) => `${r.owner}/${r.repo}`;
const mrBase = (r: CommentRepo, iid: number) => `/projects/${projectId(pathOf(r))}/merge_requests/${iid}`;

/** The reason a GitLab refusal will not change on retry, or undefined (outages, waits and a bad token are tried again). */
export function gitlabCommentRefusalOf(err: unknown, what: string): string | undefined {
  if (!(err instanceof ForgeError) || err.status === undefined || err.retryAt !== undefined) return undefined;
  const said = err.forgeMessage ?? '';
  if (err.status === 404) return `${what}: not found${said ? ` (${said})` : ''}`;
  if (err.status === 403 && /locked/i.test(said)) return `${what}: the discussion is locked`;
  if (err.status === 403)
    return `${what}: forbidden${said ? ` (${said})` : ''}: the token needs the api scope and a role that may comment (Reporter or above; a member on a locked discussion)`;
  if (err.status === 400 || err.status === 422) return `${what}: GitLab refused it (${err.status}${said ? ` ${said}` : ''})`;
  return undefined;
}

/** The CommentsPort over the GitLab client; `gated` is the side's pause gate (errors leave it as ForgeError); `user` the token's user. */
export function gitlabComments(
  client: Pick<GitLabClient, 'send'>,
  gated: <T>(fn: () => Promise<T>) => Promise<T>,
  user: () => Promise<GitLabUser>,
): CommentsPort {
  const call = async (r: Omit<GitLabRequest, 'op'> & { op: GitLabOperation }): Promise<GitLabAnswer> => {
    try {
      return await gated(() => client.send(r));
    } catch (err) {
      const reason = gitlabCommentRefusalOf(err, r.what);
      throw reason === undefined ? err : new CommentRefused(reason, { cause: err });
    }
  };
  /** Every item of a list, every page (`x-next-page`, else `Link`), up to LIST_CAP (beyond it: ListCapped). */
  const all = async <T>(r: Omit<GitLabRequest, 'method'>): Promise<T[]> => {
    const out: T[] = [];
    for (let page: number | undefined = 1, read = 1; page !== undefined; read++) {
      const res = await call({ ...r, method: 'GET', query: { ...r.query, per_page: PAGE_SIZE, page } });
      if (!Array.isArray(res.data)) throw new ForgeError(`${r.what}: the answer is not a list`, undefined, { operation: r.op });
      out.push(...(res.data as T[]));
      if (out.length > LIST_CAP.items) throw new ListCapped(r.what, { pages: read, items: out.length });
      page = nextPageOf(res.headers, page);
      if (page !== undefined && read >= LIST_CAP.pages) throw new ListCapped(r.what, { pages: read, items: out.length });
    }
    return out;
  };
  const ofCommit = (r: CommentRepo, sha: string, state?: string) => {
    const what = `find the merge requests of ${pathOf(r)}@${sha.slice(0, 7)}`;
    const path = `/projects/${projectId(pathOf(r))}/repository/commits/${encodeURIComponent(sha)}/merge_requests`;
    return all<GlMergeRequest>({ op: 'commitMergeRequests', what, path, query: state === undefined ? {} : { state } });
  };
  return {
    maxBodyChars: GITLAB_MAX_NOTE_CHARS,
    async pullRequest(r, iid) {
      const what = `read merge request !${iid} of ${pathOf(r)}`;
      const mr = (await call({ op: 'mergeRequest', what, method: 'GET', path: mrBase(r, iid) })).data as GlMergeRequest;
      return { open: mr.state === 'opened', locked: mr.state === 'locked' || mr.discussion_locked === true };
    },
    async listOwn(r, iid) {
      const what = `list the notes of !${iid} in ${pathOf(r)}`;
      const notes = await all<GlNote>({ op: 'listNotes', what, path: `${mrBase(r, iid)}/notes`, query: { sort: 'asc' } });
      const me = (await user()).username;
      return notes
        .filter((n) => n.system !== true && n.author?.username === me)
        .map((n): ForgeComment => ({ id: n.id, body: n.body ?? '' }));
    },
    async create(r, iid, body) {
      const what = `comment on !${iid} in ${pathOf(r)}`;
      const res = await call({ op: 'createNote', what, method: 'POST', path: `${mrBase(r, iid)}/notes`, body: { body } });
      return (res.data as GlNote).id;
    },
    async edit(r, iid, id, body) {
      const what = `edit note ${id} on !${iid} in ${pathOf(r)}`;
      try {
        await call({ op: 'editNote', what, method: 'PUT', path: `${mrBase(r, iid)}/notes/${id}`, body: { body } });
        return true;
      } catch (err) {
        // Deleted by a person: the keeper makes it again (after a read of the merge request).
        if (err instanceof CommentRefused && err.cause instanceof ForgeError && err.cause.status === 404) return false;
        throw err;
      }
    },
    async commitOnPullRequest(r, iid, sha) {
      // The merge requests whose source branch has the commit (one page unless hundreds do).
      const mrs = await ofCommit(r, sha);
      if (mrs.some((m) => m.iid === iid)) return undefined;
      return `commit ${sha.slice(0, 7)} is not on merge request !${iid} of ${pathOf(r)}: GitLab names ${mrs.length === 0 ? 'no merge request' : mrs.map((m) => `!${m.iid}`).join(', ')} with it`;
    },
    async pullRequestOfCommit(r, sha) {
      const mrs = await ofCommit(r, sha, 'opened');
      // Open ones whose head is the commit itself (the list also names merge requests that merely contain it).
      const heads = mrs.filter((m) => m.state === 'opened' && m.sha === sha).map((m) => m.iid);
      return heads.length > 0 ? Math.min(...heads) : null;
    },
  };
}
