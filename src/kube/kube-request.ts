/**
 * Plain GETs to the API server over node:http(s), with the kubeconfig's TLS and credentials: the reader's
 * reads (kube-client.ts, core-reads.ts) and the watch transport (watch-stream.ts) share them. Failures
 * become KubeError with the HTTP status and the message of the server's Status body.
 */
import type { Agent, IncomingMessage } from 'node:http';
import type { RequestOptions } from 'node:https';
import { http, https } from '../common/node-http.js';
import { KubeError, errorMessage } from '../common/errors.js';
import type { ClusterAccess } from './kube-credentials.js';

/** Longest body of one object read (etcd keeps objects below 1.5 MiB). */
export const MAX_OBJECT_CHARS = 4 * 1024 * 1024;
/** Longest list page read (500 objects of a few KiB each, with room to spare). */
export const MAX_LIST_PAGE_CHARS = 64 * 1024 * 1024;

/** Sends one GET of `path` with `query`; resolves with the response once its headers arrived. */
export type KubeGet = (path: string, query: Record<string, string>, signal: AbortSignal) => Promise<IncomingMessage>;

/** Reads one JSON body: `what` names the request in errors; 404 and every other failure throw a KubeError. */
export type KubeGetJson = (what: string, path: string, query?: Record<string, string | undefined>, limit?: number) => Promise<unknown>;

/**
 * GETs with the access's credentials, asked for anew before each request (tokens rotate). `keep` may trade
 * the fresh agent the credentials come with for a kept one (keep-alive-agent.ts); without it each request
 * has its own agent, so its own connection (a watch's).
 */
export function kubeGet(access: ClusterAccess, keep: (fresh: Agent) => Agent = (fresh) => fresh): KubeGet {
  const server = access.cluster?.server;
  if (!server) throw new Error('kubeconfig names no current cluster with a server');
  return async (path, query, signal) => {
    const opts: RequestOptions = {};
    await access.applyToHTTPSOptions(opts);
    const url = new URL(server + path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const request = url.protocol === 'http:' ? http.request : https.request;
    const headers = { ...(opts.headers as Record<string, string> | undefined), Accept: 'application/json' };
    const agent = opts.agent instanceof http.Agent ? keep(opts.agent) : undefined;
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'GET', agent, headers, signal, ...(opts.auth ? { auth: opts.auth } : {}) }, resolve);
      req.on('error', reject);
      req.end();
    });
  };
}

/** The `message` of a Status body, or the start of the text; undefined for an empty body. */
export function statusMessage(text: string): string | undefined {
  try {
    const msg = (JSON.parse(text) as { message?: unknown } | null)?.message;
    if (typeof msg === 'string') return msg;
  } catch {
    /* not JSON */
  }
  return text.trim().slice(0, 200) || undefined;
}

/** Reads a body as text, failing past `limit` characters. */
export function bodyText(res: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      text += c;
      if (text.length > limit) res.destroy(new Error(`body longer than ${limit} characters`));
    });
    res.on('end', () => resolve(text));
    res.on('error', reject);
    res.on('close', () => reject(new Error('connection closed before the body ended')));
  });
}

/**
 * JSON reads over `get`, each with its own `timeoutMs`: `Kubernetes API: <what> failed: <status> <message>`
 * (`Unauthorized` for a bare 401), `… timed out after <ms> ms`, `… failed: <network error>`.
 */
export function kubeGetJson(get: KubeGet, timeoutMs: number): KubeGetJson {
  return async (what, path, query = {}, limit = MAX_OBJECT_CHARS) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const defined = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
    let res: IncomingMessage;
    let text: string;
    try {
      res = await get(path, defined, signal);
      text = await bodyText(res, limit);
    } catch (err) {
      const why = signal.aborted ? `timed out after ${timeoutMs} ms` : `failed: ${errorMessage(err)}`;
      throw new KubeError(`Kubernetes API: ${what} ${why}`, undefined, { cause: err });
    }
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      const detail = statusMessage(text) ?? (code === 401 ? 'Unauthorized' : 'no message');
      throw new KubeError(`Kubernetes API: ${what} failed: ${code} ${detail}`, code);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new KubeError(`Kubernetes API: ${what} returned an unexpected body`);
    }
  };
}
