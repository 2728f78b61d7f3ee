/**
 * The one fetch every forge client sends through (GitHub's octokit, Forgejo, GitLab), over the transport: redirects are followed by
 * hand, on the same origin only (scheme, host and port), at most MAX_FORGE_REDIRECTS times. A forge's token is a
 * header (`Authorization`, GitLab's `PRIVATE-TOKEN`) that fetch itself would carry to whatever host a redirect
 * names (it drops only `Authorization` across origins): here a redirect to another origin is refused before
 * anything is sent there, with an error that says where the forge pointed, so its URL can be corrected.
 */

import { transportFetch } from '../common/http-transport.js';

/** Redirects followed for one request; more is a loop or a misconfiguration. */
export const MAX_FORGE_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A forge answered with a redirect the bridge does not follow; its message names origins only, never a path or query. */
export class ForgeRedirectRefused extends Error {
  override readonly name = 'ForgeRedirectRefused';
}

const urlOf = (input: Parameters<typeof fetch>[0]): URL =>
  new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);

/**
 * A fetch that follows same-origin redirects by hand and refuses the others. 307 and 308 repeat the request as it
 * was (method and body); 301, 302 and 303 are followed for a read only, since following them turns a write into a
 * GET that writes nothing.
 */
export function sameOriginFetch(inner: typeof fetch = transportFetch, maxRedirects = MAX_FORGE_REDIRECTS): typeof fetch {
  return async (input, init) => {
    let url = urlOf(input);
    const origin = url.origin;
    const method = (init?.method ?? 'GET').toUpperCase();
    for (let hops = 0; ; hops++) {
      const res = await inner(url, { ...init, redirect: 'manual' });
      const location = res.headers.get('location');
      if (!REDIRECTS.has(res.status) || location === null) return res;
      await res.body?.cancel();
      if (!URL.canParse(location, url.href))
        throw new ForgeRedirectRefused(`${origin} answered ${res.status} with a Location that is not a URL`);
      const next = new URL(location, url);
      if (next.origin !== origin)
        throw new ForgeRedirectRefused(
          `${origin} redirected (${res.status}) to ${next.origin}: refused, the token is only sent to ${origin}; set the forge's URL to where it lives`,
        );
      if (res.status !== 307 && res.status !== 308 && method !== 'GET' && method !== 'HEAD')
        throw new ForgeRedirectRefused(`${origin} answered ${method} with ${res.status}: a write is not repeated as a GET`);
      if (hops >= maxRedirects) throw new ForgeRedirectRefused(`${origin} redirected more than ${maxRedirects} times`);
      url = next;
    }
  };
}

/** What a token forge's HTTP client is built from (Forgejo's, GitLab's); `Op` names its operations. */
export interface TokenClientOptions<Op extends string> {
  /** The API root (`…/api/v1`, `…/api/v4`). */
  apiBase: string;
  /** The access token, or a function that reads it (its `…_TOKEN_FILE`) before each request. */
  token: string | (() => Promise<string>);
  userAgent: string;
  timeoutMs?: number;
  /** Largest answer read (default MAX_FORGE_ANSWER_BYTES); a larger one fails the request, its outcome unknown. */
  maxAnswerBytes?: number;
  now?: () => number;
  /** Told of every request's outcome: the HTTP status, `timeout` or `network`, for metrics and the credential check. */
  observe?: (operation: Op, outcome: number | 'timeout' | 'network') => void;
}

/** The innermost useful cause of a fetch failure (`fetch failed` alone names nothing), with its code. */
export function networkDetail(err: unknown): string {
  let detail = err instanceof Error ? err.message : String(err);
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    detail = typeof code === 'string' && !e.message.includes(code) ? `${e.message} (${code})` : e.message || detail;
  }
  return detail;
}
