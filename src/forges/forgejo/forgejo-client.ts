import { BodyTooLarge, MAX_FORGE_ANSWER_BYTES, readCapped } from '../../common/capped-body.js';
import { ForgeError } from '../../common/errors.js';
import { retryAtOf, type ForgejoOperation } from './forgejo-error.js';
import { networkDetail, sameOriginFetch, type TokenClientOptions } from '../forge-fetch.js';
import type { CommitStatusPort, CreateStatusBody, ForgejoStatus, RecentStatuses, RepoRef } from './forgejo-types.js';

/** Every Forgejo request is abandoned after this long (the body read included); the queue retries later. */
export const FORGEJO_TIMEOUT_MS = 15_000;
/** Statuses per page: Forgejo's largest page (`MaxResponseItems`, 50 by default; it caps larger asks). */
export const STATUS_PAGE_LIMIT = 50;
/** Pages read at most to find one context's newest status: the 250 newest statuses of a commit. */
export const MAX_STATUS_PAGES = 5;
/** Characters of an error answer's message kept in the error. */
const MAX_MESSAGE_CHARS = 300;
/**
 * Newest first by the status's index on the commit. Despite its name this is `index DESC` in
 * Forgejo's source; the default order is by creation time in whole seconds, which lists two
 * statuses sent within one second in either order.
 */
const NEWEST_FIRST = 'leastindex';

export type ForgejoClientOptions = TokenClientOptions<ForgejoOperation>;

/** One page of a commit's statuses, newest first. */
export interface StatusPage {
  statuses: ForgejoStatus[];
  /** The next page's number, when there is one. */
  nextPage: number | undefined;
}

type Query = Record<string, string | number>;

const seg = encodeURIComponent;
const short = (sha: string) => sha.slice(0, 7);

/**
 * The Forgejo (and Gitea) commit-status API over the bridge's transport (common/http-transport.ts): `Authorization: token …`, one timeout
 * per request, redirects followed on its own origin only (forge-fetch.ts), no retries (the queue retries), every failure a `ForgeError` with the status, Forgejo's
 * message and, for 429/503 with `Retry-After`, the time to come back. The token never appears in an
 * error or a callback.
 */
export class ForgejoClient implements CommitStatusPort {
  /** Redirects followed on Forgejo's own origin only: the token never leaves it. */
  private readonly fetch = sameOriginFetch();

  constructor(private readonly o: ForgejoClientOptions) {}

  async createStatus(r: RepoRef, sha: string, body: CreateStatusBody): Promise<ForgejoStatus> {
    const what = `create ${body.state} status "${body.context}" on ${r.owner}/${r.repo}@${short(sha)}`;
    const path = `/repos/${seg(r.owner)}/${seg(r.repo)}/statuses/${seg(sha)}`;
    return (await this.send('createStatus', what, 'POST', path, {}, body)).data as ForgejoStatus;
  }

  /** One page of a commit's statuses (every context), newest first. */
  async listStatuses(r: RepoRef, sha: string, page = 1): Promise<StatusPage> {
    const path = `/repos/${seg(r.owner)}/${seg(r.repo)}/statuses/${seg(sha)}`;
    const query = { sort: NEWEST_FIRST, limit: STATUS_PAGE_LIMIT, page };
    const what = `list statuses of ${r.owner}/${r.repo}@${short(sha)}`;
    const res = await this.send('listStatuses', what, 'GET', path, query);
    if (!Array.isArray(res.data)) throw new ForgeError(`${what}: the answer is not a list`, undefined, { operation: 'listStatuses' });
    return { statuses: res.data as ForgejoStatus[], nextPage: nextPageOf(res.headers, page) };
  }

  /**
   * The first page of a commit's statuses, newest first: complete when no page follows and the page is not full
   * (a full page without a `Link` header, say from a proxy that drops it, may still have older statuses).
   */
  async recentStatuses(r: RepoRef, sha: string): Promise<RecentStatuses> {
    const page = await this.listStatuses(r, sha, 1);
    return { statuses: page.statuses, complete: page.nextPage === undefined && page.statuses.length < STATUS_PAGE_LIMIT };
  }

  /** The newest status of `context` on a commit; null when none is among its MAX_STATUS_PAGES pages. */
  async latestStatus(r: RepoRef, sha: string, context: string): Promise<ForgejoStatus | null> {
    const wanted = context.trim(); // Forgejo stores the context trimmed
    let page: number | undefined = 1;
    for (let read = 0; page !== undefined && read < MAX_STATUS_PAGES; read++) {
      const found: StatusPage = await this.listStatuses(r, sha, page);
      const hit = found.statuses.find((s) => s.context === wanted);
      if (hit !== undefined) return hit;
      page = found.nextPage;
    }
    return null;
  }

  /** The credential check (`GET /api/v1/user`): the token's user, or a ForgeError (401 for a bad token). */
  async currentUser(): Promise<{ login: string }> {
    return (await this.send('credentialCheck', 'check FORGEJO_TOKEN (GET /user)', 'GET', '/user')).data as { login: string };
  }

  /** One request; the parsed JSON answer (typed by the caller: the swagger's shape) or a ForgeError (forgejo-comments.ts sends through it too). */
  async send(
    op: ForgejoOperation,
    what: string,
    method: string,
    path: string,
    query: Query = {},
    body?: unknown,
  ): Promise<{ data: unknown; headers: Headers }> {
    const url = new URL(`${this.o.apiBase}${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    let token: string;
    try {
      token = typeof this.o.token === 'string' ? this.o.token : await this.o.token();
    } catch (err) {
      throw new ForgeError(`${what}: cannot read the token: ${err instanceof Error ? err.message : String(err)}`, undefined, {
        cause: err,
        operation: op,
      });
    }
    let res: Response;
    let text: string;
    try {
      res = await this.fetch(url, {
        method,
        headers: {
          authorization: `token ${token}`,
          accept: 'application/json',
          'user-agent': this.o.userAgent,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.o.timeoutMs ?? FORGEJO_TIMEOUT_MS),
      });
      text = (await readCapped(res, this.o.maxAnswerBytes ?? MAX_FORGE_ANSWER_BYTES)).toString('utf8');
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        this.o.observe?.(op, 'network');
        // Status unknown on purpose, as for an unreadable answer: a write may have gone through.
        throw new ForgeError(`${what}: the answer was too large (${err.message})`, undefined, { cause: err, operation: op });
      }
      const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      this.o.observe?.(op, timeout ? 'timeout' : 'network');
      throw new ForgeError(`${what}: ${timeout ? 'timed out' : `network error: ${networkDetail(err)}`}`, undefined, {
        cause: err,
        operation: op,
      });
    }
    this.o.observe?.(op, res.status);
    if (!res.ok) throw this.refusal(op, what, res, text);
    try {
      return { data: JSON.parse(text) as unknown, headers: res.headers };
    } catch (err) {
      // Status unknown on purpose: a 201 that cannot be read may still have created the status.
      throw new ForgeError(`${what}: answered ${res.status} with a body that is not JSON`, undefined, { cause: err, operation: op });
    }
  }

  private refusal(op: ForgejoOperation, what: string, res: Response, text: string): ForgeError {
    const said = messageOf(text);
    const retryAt = retryAtOf(res.status, res.headers.get('retry-after'), (this.o.now ?? Date.now)());
    // Forgejo answers a status posted to a commit the repository does not have with a bare 500.
    const hint = op === 'createStatus' && res.status === 500 ? ' (Forgejo also answers 500 when the commit is not in the repository)' : '';
    return new ForgeError(`${what}: ${res.status} ${said ?? res.statusText}${hint}`.trim(), res.status, {
      operation: op,
      ...(said !== undefined ? { forgeMessage: said } : {}),
      ...(retryAt !== undefined ? { retryAt } : {}),
    });
  }
}

/** Forgejo's `message` (an APIError body), shortened; undefined for an empty one or a body that is not Forgejo's JSON. */
function messageOf(text: string): string | undefined {
  try {
    const m = (JSON.parse(text) as { message?: unknown } | null)?.message;
    return typeof m === 'string' && m.trim() !== '' ? Array.from(m.trim()).slice(0, MAX_MESSAGE_CHARS).join('') : undefined;
  } catch {
    return undefined;
  }
}

/** The next page, from the `Link` header's rel="next" (Forgejo sends one whenever a page follows). */
function nextPageOf(headers: Headers, page: number): number | undefined {
  const next = /<([^>]+)>\s*;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1];
  if (next === undefined || !URL.canParse(next)) return undefined;
  const n = Number(new URL(next).searchParams.get('page'));
  return Number.isInteger(n) && n > page ? n : undefined;
}
