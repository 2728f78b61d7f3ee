/**
 * One GitLab request on the bridge's transport (common/http-transport.ts), the forge HTTP layer the Forgejo
 * client uses too: connections kept alive, through `HTTPS_PROXY`/`NO_PROXY` when set (`installProxy`), redirects followed on GitLab's own origin only (forge-fetch.ts: `PRIVATE-TOKEN` never leaves it), one
 * timeout per request including the body read, the answer read with a size cap (as the
 * registry client does), no retries (the queue retries), every failure a `GitLabError`. The token is
 * read before each request (a rotated `GITLAB_TOKEN_FILE` is picked up) and never appears in an error.
 */
import { BodyTooLarge, MAX_FORGE_ANSWER_BYTES, readCapped } from '../../common/capped-body.js';
import { readFile } from 'node:fs/promises';
import { GitLabError, gitlabMessageOf, pauseUntilOf, type GitLabOperation } from './gitlab-error.js';
import { networkDetail, sameOriginFetch, type TokenClientOptions } from '../forge-fetch.js';

/** Every GitLab request is abandoned after this long (the body read included). */
export const GITLAB_TIMEOUT_MS = 15_000;
/** The most of an answer read: 100 deployments with their users and environments stay far below. */
export const MAX_ANSWER_BYTES = MAX_FORGE_ANSWER_BYTES;

/** The token inline, or a function that reads it before each request. */
export type GitLabToken = string | (() => Promise<string>);

/** Reads a token file (`GITLAB_TOKEN_FILE`) again at each call, trimmed as Forgejo's is. */
export function tokenFileReader(path: string): () => Promise<string> {
  return async () => (await readFile(path, 'utf8')).trim();
}

export type GitLabHttpOptions = TokenClientOptions<GitLabOperation>;

export interface GitLabRequest {
  op: GitLabOperation;
  /** What the request does, for errors: `create deployment of app@1a2b3c4 to staging`. */
  what: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Below the API root, ids already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

export interface GitLabAnswer {
  data: unknown;
  headers: Headers;
}

/** The transport, following redirects on the request's own origin only (stateless, so shared). */
const forgeFetch = sameOriginFetch();

/** Sends one request; the parsed JSON answer, or a GitLabError. */
export async function gitlabRequest(o: GitLabHttpOptions, r: GitLabRequest): Promise<GitLabAnswer> {
  const url = new URL(`${o.apiBase}${r.path}`);
  for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  let token: string;
  try {
    token = typeof o.token === 'string' ? o.token : await o.token();
  } catch (err) {
    throw new GitLabError(`${r.what}: cannot read the token: ${err instanceof Error ? err.message : String(err)}`, undefined, {
      operation: r.op,
      cause: err,
    });
  }
  const timeoutMs = o.timeoutMs ?? GITLAB_TIMEOUT_MS;
  let res: Response;
  let text: string;
  try {
    res = await forgeFetch(url, {
      method: r.method,
      headers: {
        'private-token': token,
        accept: 'application/json',
        'user-agent': o.userAgent,
        ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await boundedText(res, o.maxAnswerBytes ?? MAX_ANSWER_BYTES, r);
  } catch (err) {
    if (err instanceof GitLabError) throw err;
    const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    o.observe?.(r.op, timeout ? 'timeout' : 'network');
    const detail = timeout ? `timed out after ${timeoutMs} ms` : `network error: ${networkDetail(err)}`;
    throw new GitLabError(`${r.what}: ${detail}`, undefined, { operation: r.op, cause: err });
  }
  o.observe?.(r.op, res.status);
  if (!res.ok) {
    const said = gitlabMessageOf(text);
    const retryAt = pauseUntilOf(res.status, res.headers, (o.now ?? Date.now)());
    throw new GitLabError(`${r.what}: ${res.status} ${said ?? res.statusText}`.trim(), res.status, {
      operation: r.op,
      ...(said === undefined ? {} : { gitlabMessage: said }),
      ...(retryAt === undefined ? {} : { retryAt }),
    });
  }
  try {
    return { data: JSON.parse(text) as unknown, headers: res.headers };
  } catch (err) {
    // Status unknown on purpose: a 201 that cannot be read may still have created the deployment.
    throw new GitLabError(`${r.what}: answered ${res.status} with a body that is not JSON`, undefined, { operation: r.op, cause: err });
  }
}

/** The body as text, refused past `maxBytes` (declared or read); the status stays unknown, as for an unreadable answer. */
async function boundedText(res: Response, maxBytes: number, r: GitLabRequest): Promise<string> {
  try {
    return (await readCapped(res, maxBytes)).toString('utf8');
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    const n = err.declared === undefined ? 'read' : `${err.declared} declared`;
    throw new GitLabError(`${r.what}: answered ${res.status} with more than ${maxBytes} bytes (${n})`, undefined, { operation: r.op });
  }
}
