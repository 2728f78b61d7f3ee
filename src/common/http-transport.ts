/**
 * The one transport every forge and registry request goes out on: a fetch-shaped function over node:http and
 * node:https with kept-alive connections. Node's own fetch is undici, and on Node 24 loading it costs a process about
 * 25 MiB (BENCHMARKS.md §5), more than the bridge's whole heap; the clients need only a fraction of it (no
 * redirects followed: they follow them by hand; no compression asked; no streamed request bodies).
 * With an outbound proxy set, requests go through Node's fetch instead, whose global dispatcher installProxy made
 * undici's EnvHttpProxyAgent (proxy.ts): a proxied install pays undici's memory, an unproxied one never loads it.
 */
import type { IncomingMessage } from 'node:http';
import { LightBody, LightHeaders, LightResponse } from './light-response.js';
import { http, https } from './node-http.js';

/**
 * A kept-alive connection idle this long is closed (sooner when the server's `Keep-Alive: timeout=` says so, less a
 * second), as undici does: without it Node's agent keeps one until the server closes it, and a request sent while the
 * close is on its way (the bridge's loop busy) fails with ECONNRESET.
 */
export const IDLE_CONNECTION_MS = 4_000;
const AGENT_OPTIONS = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
/** Keep-alive agents, one per scheme, as undici's pool keeps connections per origin. */
const AGENTS = { http: new http.Agent(AGENT_OPTIONS), https: new https.Agent(AGENT_OPTIONS) };
/** Reads sent again once when the kept-alive connection they went out on turned out closed before any answer. */
const REPEATABLE = new Set(['GET', 'HEAD']);
const CLOSED_UNDER_US = new Set(['ECONNRESET', 'EPIPE']);

type Fetch = typeof fetch;
let proxied = false;

/** From now on requests go through Node's fetch (undici), whose dispatcher routes them through the proxy. */
export function sendThroughProxy(): void {
  proxied = true;
}

/** The bridge's fetch: Node's own behind a proxy, else `lightFetch`. */
export const transportFetch: Fetch = (input, init) => (proxied ? fetch(input, init) : lightFetch(input, init));

/**
 * A fetch over node:http(s). Redirects are answered, never followed (`redirect` must be `manual`); a network failure
 * rejects as fetch's does (`TypeError: fetch failed` with the cause), an abort with the signal's reason, also while
 * the body is read. Bodies: none, a string or bytes.
 */
export const lightFetch: Fetch = (input, init = {}) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  return send(url, init) as unknown as Promise<Response>;
};

async function send(url: URL, init: RequestInit): Promise<LightResponse> {
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  if ((init.redirect ?? 'follow') !== 'manual') throw new TypeError('lightFetch follows no redirects: pass redirect "manual"');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw failed(new Error(`${url.protocol} is not http: or https:`));
  const method = (init.method ?? 'GET').toUpperCase();
  const body = bodyOf(init.body);
  const headers = headersOf(init.headers);
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  return exchange(url, { method, headers }, body, signal, REPEATABLE.has(method));
}

/** One request and its answer's head; `again`: a read whose reused connection was closed under it is sent once more. */
function exchange(
  url: URL,
  options: { method: string; headers: Record<string, string> },
  body: Uint8Array | undefined,
  signal: AbortSignal | undefined,
  again: boolean,
): Promise<LightResponse> {
  return new Promise((resolve, reject) => {
    const req =
      url.protocol === 'https:'
        ? https.request(url, { ...options, agent: AGENTS.https })
        : http.request(url, { ...options, agent: AGENTS.http });
    let answer: IncomingMessage | undefined;
    const onAbort = () => (answer ?? req).destroy(signal?.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    req.once('response', (res) => {
      answer = res;
      res.once('close', settle);
      const status = res.statusCode ?? 0;
      const empty = options.method === 'HEAD' || status === 204 || status === 304;
      if (empty) res.resume();
      resolve(
        new LightResponse(status, res.statusMessage ?? '', new LightHeaders(res.headers), empty ? null : LightBody.of(res), url.href),
      );
    });
    req.once('error', (err: NodeJS.ErrnoException) => {
      settle();
      if (signal?.aborted) reject(signal.reason as Error);
      else if (again && req.reusedSocket && CLOSED_UNDER_US.has(err.code ?? '')) resolve(exchange(url, options, body, signal, false));
      else reject(failed(err));
    });
    req.end(body);
  });
}

/** fetch's network failure: a TypeError whose cause says what happened (networkDetail reads it). */
const failed = (cause: Error) => new TypeError('fetch failed', { cause });

function bodyOf(body: RequestInit['body']): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  throw new TypeError('lightFetch sends a string or bytes as a body');
}

function headersOf(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined) return out;
  const pairs: Iterable<readonly [string, string]> =
    Symbol.iterator in init ? (init as Iterable<readonly [string, string]>) : Object.entries(init as Record<string, string>);
  for (const [name, value] of pairs) out[name.toLowerCase()] = value;
  return out;
}
