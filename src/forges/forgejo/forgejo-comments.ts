/**
 * Forgejo's (and Gitea's) pull request comments: issue comments (pull requests share the issue index), through
 * the same client and gate as the commit statuses (paused while Forgejo asked to wait, a 401 pauses the side).
 * The token needs `write:issue`. Forgejo's comment list is not paginated: one request returns every comment.
 */
import { ForgeError } from '../../common/errors.js';
import { CommentRefused, LIST_CAP, ListCapped, type CommentRepo, type CommentsPort } from '../comments-port.js';
import type { ForgejoClient } from './forgejo-client.js';

interface FjIssue {
  state: string;
  is_locked?: boolean;
  pull_request?: unknown;
}

interface FjPull {
  head?: { sha?: string } | null;
}

interface FjComment {
  id: number;
  body?: string;
  user?: { login?: string } | null;
}

/**
 * The longest comment written to Forgejo, in characters. Forgejo documents no limit; its comment text is a database
 * text column, which on MySQL/MariaDB may be a TEXT of 65,535 bytes: 16,000 characters fit that even at four bytes each.
 */
export const FORGEJO_MAX_COMMENT_CHARS = 16_000;

const seg = encodeURIComponent;
const base = (r: CommentRepo) => `/repos/${seg(r.owner)}/${seg(r.repo)}/issues`;

/** The reason a Forgejo refusal will not change on retry, or undefined (outages and waits are tried again). */
function refusalOf(err: unknown, what: string): string | undefined {
  if (!(err instanceof ForgeError) || err.status === undefined || err.retryAt !== undefined) return undefined;
  const said = err.forgeMessage ?? '';
  if (err.status === 404) return `${what}: not found`;
  if (err.status === 403 && /locked/i.test(said)) return `${what}: the conversation is locked`;
  if (err.status === 403) return `${what}: forbidden${said ? ` (${said})` : ''}: the token needs the write:issue scope and write access`;
  if (err.status === 422 || err.status === 423) return `${what}: Forgejo refused it (${err.status}${said ? ` ${said}` : ''})`;
  return undefined;
}

/** The CommentsPort over the Forgejo client; `gated` is the side's pause gate; `login` the token's user (`GET /user`, asked once). */
export function forgejoComments(client: ForgejoClient, gated: <T>(fn: () => Promise<T>) => Promise<T>): CommentsPort {
  let login: Promise<string> | undefined;
  const self = () => {
    login ??= gated(() => client.currentUser()).then(
      (u) => u.login,
      (err: unknown) => {
        login = undefined;
        throw err;
      },
    );
    return login;
  };
  const call = async <T>(op: Parameters<ForgejoClient['send']>[0], what: string, method: string, path: string, body?: unknown) => {
    try {
      return (await gated(() => client.send(op, what, method, path, {}, body))).data as T;
    } catch (err) {
      const reason = refusalOf(err, what);
      throw reason === undefined ? err : new CommentRefused(reason, { cause: err });
    }
  };
  return {
    maxBodyChars: FORGEJO_MAX_COMMENT_CHARS,
    async pullRequest(r, pr) {
      const issue = await call<FjIssue>('pullRequest', `read pull request #${pr} of ${r.owner}/${r.repo}`, 'GET', `${base(r)}/${pr}`);
      if (issue.pull_request == null) throw new CommentRefused(`#${pr} of ${r.owner}/${r.repo} is an issue, not a pull request`);
      return { open: issue.state === 'open', locked: issue.is_locked === true };
    },
    async listOwn(r, pr) {
      const what = `list the comments of #${pr} in ${r.owner}/${r.repo}`;
      const comments = await call<FjComment[]>('listComments', what, 'GET', `${base(r)}/${pr}/comments`);
      // One answer holds the whole list (bounded in bytes by the client): past the item cap it is not searched.
      if (comments.length > LIST_CAP.items) throw new ListCapped(what, { pages: 1, items: comments.length });
      const me = await self();
      return comments.filter((c) => c.user?.login === me).map((c) => ({ id: c.id, body: c.body ?? '' }));
    },
    async commitOnPullRequest(r, pr, sha) {
      // Forgejo cannot list a commit's pull requests (only the merged one), nor compare in one bounded read: the
      // deployed commit must be the pull request's head.
      const pull = await call<FjPull>(
        'pullRequest',
        `read pull request #${pr} of ${r.owner}/${r.repo}`,
        'GET',
        `/repos/${seg(r.owner)}/${seg(r.repo)}/pulls/${pr}`,
      );
      const head = pull.head?.sha ?? '';
      if (head !== '' && head.toLowerCase().startsWith(sha.toLowerCase())) return undefined;
      return `commit ${sha.slice(0, 7)} is not the head of pull request #${pr} of ${r.owner}/${r.repo} (its head is ${head === '' ? 'unknown' : head.slice(0, 7)}; on Forgejo only the head commit is taken)`;
    },
    async create(r, pr, body) {
      const c = await call<FjComment>('createComment', `comment on #${pr} in ${r.owner}/${r.repo}`, 'POST', `${base(r)}/${pr}/comments`, {
        body,
      });
      return c.id;
    },
    async edit(r, pr, id, body) {
      try {
        await call('editComment', `edit comment ${id} on #${pr} in ${r.owner}/${r.repo}`, 'PATCH', `${base(r)}/comments/${id}`, { body });
        return true;
      } catch (err) {
        if (err instanceof CommentRefused && err.cause instanceof ForgeError && err.cause.status === 404) return false;
        throw err;
      }
    },
  };
}
