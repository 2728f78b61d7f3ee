/**
 * The watch transport: a paged LIST that keeps the list's resourceVersion, and a WATCH streamed as JSON
 * lines, both plain GETs with the kubeconfig's TLS and credentials (kube-request.ts). Not client-node's
 * Watch, so that a watch can be abandoned before its headers arrive and a silent connection is noticed (`idleMs`).
 */
import type { IncomingMessage } from 'node:http';
import { KubeError, errorMessage } from '../common/errors.js';
import type { ClusterAccess } from './kube-credentials.js';
import { MAX_LIST_PAGE_CHARS, bodyText, kubeGet, kubeGetJson, statusMessage, type KubeGet } from './kube-request.js';
import type { K8sObject } from './kube-types.js';

/** Objects asked for per list page. */
const LIST_PAGE_SIZE = 500;
/** Bound on pages per list, so a looping continue token cannot spin forever. */
const MAX_LIST_PAGES = 200;
/** Longest watch line accepted (etcd keeps objects below 1.5 MiB). */
const MAX_LINE_CHARS = 4 * 1024 * 1024;
/** Longest error body read for its message. */
const MAX_ERROR_BODY_CHARS = 64 * 1024;

/** One watch event; ERROR events end the watch instead (see WatchEnd). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: K8sObject;
}

/**
 * How a watch ended: `closed` (the server ended it, e.g. its timeoutSeconds, or close() was called),
 * `gone` (410: the resourceVersion is too old, list again), or `failed` (an error status, a dropped or
 * silent connection; `error.status` is the HTTP status when there was one).
 */
export type WatchEnd = { reason: 'closed' } | { reason: 'gone' } | { reason: 'failed'; error: KubeError };

export interface WatchHandle {
  /** Resolves once the watch ended (never rejects). */
  ended: Promise<WatchEnd>;
  /** Stops the watch; `ended` resolves to `closed`. */
  close(): void;
}

/** A collection's objects and the resourceVersion to watch from. */
export interface Listing {
  items: K8sObject[];
  resourceVersion: string;
}

export interface WatchTransport {
  /** All pages of a LIST of `path` (a collection path), with the list's resourceVersion. */
  list(path: string, timeoutMs: number): Promise<Listing>;
  /** Opens a WATCH of `path` with the given query (watch=true is added); calls `onEvent` per event. */
  watch(path: string, query: Record<string, string>, onEvent: (e: WatchEvent) => void, idleMs: number): WatchHandle;
}

/** Creates the transport over a loaded kubeconfig (the same one the reader uses); each request has its own connection. */
export function createWatchTransport(access: ClusterAccess): WatchTransport {
  return watchTransportOver(kubeGet(access));
}

/** The transport over one GET (a spoke's: spoke-request.ts, with only its own kubeconfig's credentials). */
export function watchTransportOver(get: KubeGet): WatchTransport {
  async function listPage(path: string, cont: string | undefined, timeoutMs: number): Promise<Record<string, unknown>> {
    const query = { limit: String(LIST_PAGE_SIZE), continue: cont };
    const body = await kubeGetJson(get, timeoutMs)(`LIST ${path}`, path, query, MAX_LIST_PAGE_CHARS);
    if (typeof body !== 'object' || body === null) throw new KubeError(`Kubernetes API: LIST ${path} returned an unexpected body`);
    return body as Record<string, unknown>;
  }

  return {
    async list(path, timeoutMs) {
      const items: K8sObject[] = [];
      let cont: string | undefined;
      let resourceVersion = '';
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const body = await listPage(path, cont, timeoutMs);
        const meta = (body.metadata ?? {}) as { continue?: string; resourceVersion?: string };
        if (!Array.isArray(body.items)) throw new KubeError(`Kubernetes API: LIST ${path} returned an unexpected body`);
        items.push(...(body.items as K8sObject[]));
        // The first page's version is the snapshot every later page belongs to.
        if (page === 0) resourceVersion = meta.resourceVersion ?? '';
        cont = meta.continue || undefined;
        if (!cont) return { items, resourceVersion };
      }
      throw new KubeError(`Kubernetes API: LIST ${path} did not finish within ${MAX_LIST_PAGES} pages`);
    },

    watch(path, query, onEvent, idleMs) {
      const what = `WATCH ${path}`;
      const abort = new AbortController();
      let done = false;
      let idle: NodeJS.Timeout | undefined;
      let resolveEnd: (end: WatchEnd) => void = () => undefined;
      const ended = new Promise<WatchEnd>((resolve) => {
        resolveEnd = resolve;
      });
      const finish = (end: WatchEnd) => {
        if (done) return;
        done = true;
        clearTimeout(idle);
        abort.abort();
        resolveEnd(end);
      };
      const failed = (message: string, status?: number): WatchEnd => ({
        reason: 'failed',
        error: new KubeError(`Kubernetes API: ${what} ${message}`, status),
      });
      const armIdle = () => {
        clearTimeout(idle);
        idle = setTimeout(() => finish(failed(`sent nothing for ${idleMs} ms`)), idleMs);
        idle.unref();
      };
      const onLine = (line: string) => {
        if (line.trim() === '') return;
        let event: { type?: unknown; object?: unknown };
        try {
          event = JSON.parse(line) as { type?: unknown; object?: unknown };
        } catch {
          finish(failed('sent a line that is not JSON'));
          return;
        }
        const object = event.object as K8sObject | undefined;
        if (event.type === 'ERROR') {
          const status = object as { code?: unknown; message?: unknown } | undefined;
          const code = typeof status?.code === 'number' ? status.code : undefined;
          const message = typeof status?.message === 'string' ? status.message : 'no message';
          finish(code === 410 ? { reason: 'gone' } : failed(`ended with an error: ${message}`, code));
          return;
        }
        const type = event.type;
        if ((type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED' || type === 'BOOKMARK') && object?.metadata) {
          onEvent({ type, object });
        }
      };
      const stream = (res: IncomingMessage) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          armIdle();
          buf += chunk;
          let nl: number;
          while (!done && (nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            onLine(line);
          }
          if (buf.length > MAX_LINE_CHARS) finish(failed(`sent a line longer than ${MAX_LINE_CHARS} characters`));
        });
        res.on('error', (err) => finish(failed(`connection dropped: ${errorMessage(err)}`)));
        res.on('close', () => {
          if (!done && buf.trim() !== '') onLine(buf);
          finish(res.complete ? { reason: 'closed' } : failed('connection dropped'));
        });
      };
      armIdle();
      get(path, { ...query, watch: 'true' }, abort.signal).then(
        (res) => {
          const code = res.statusCode ?? 0;
          if (done) res.destroy();
          else if (code === 200) stream(res);
          else
            bodyText(res, MAX_ERROR_BODY_CHARS).then(
              (text) => finish(code === 410 ? { reason: 'gone' } : failed(`failed: ${code} ${statusMessage(text) ?? 'no message'}`, code)),
              (err: unknown) => finish(failed(`failed: ${code} ${errorMessage(err)}`, code)),
            );
        },
        (err: unknown) => finish(failed(`failed: ${errorMessage(err)}`)),
      );
      return { ended, close: () => finish({ reason: 'closed' }) };
    },
  };
}
