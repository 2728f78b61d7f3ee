/**
 * Watches served like kube-apiserver's: a 200 with chunked JSON lines `{"type":…,"object":…}`, from a
 * resourceVersion (the changes after it, then live ones) or, without one, every current object as ADDED
 * first. A resourceVersion older than the kept history gets an ERROR event carrying a 410 Expired Status.
 * `timeoutSeconds` ends the stream cleanly (after a BOOKMARK when `allowWatchBookmarks` asks for them).
 */
import type { ServerResponse } from 'node:http';
import { apiVersionOf, type ResourceType } from './resources.js';
import type { Route } from './routes.js';
import { fieldSelector, labelSelector } from './selectors.js';
import { badRequest, expired, type Status } from './status.js';
import type { KubeObject, ObjectStore, StoreEvent } from './store.js';

/** How long a watch lasts when the client names no timeoutSeconds (the server's own default is 30–60 min). */
const DEFAULT_WATCH_SECONDS = 1800;

interface OpenWatch {
  res: ServerResponse;
  /** Ends the stream as the server does when the watch's resourceVersion falls out of its window. */
  expire(): void;
}

/** What the server answered before streaming: an error Status instead of a stream, or 200 and a stream. */
export type WatchStart = { status: number; body: Status } | { status: 200 };

export class WatchHub {
  private readonly open = new Set<OpenWatch>();

  constructor(private readonly store: ObjectStore) {}

  /** Watches being served now. */
  get count(): number {
    return this.open.size;
  }

  /** Serves one watch request on `res`; answers the error itself when the request is malformed. */
  serve(res: ServerResponse, t: ResourceType, route: Route, query: URLSearchParams, headers: Record<string, string>): WatchStart {
    let matches: (o: KubeObject) => boolean;
    try {
      const byLabels = labelSelector(query.get('labelSelector'));
      const byFields = fieldSelector(query.get('fieldSelector'));
      matches = (o) =>
        o.apiVersion === apiVersionOf(t) &&
        o.kind === t.kind &&
        (route.namespace === undefined || o.metadata.namespace === route.namespace) &&
        byLabels(o.metadata.labels ?? {}) &&
        byFields(o.metadata);
    } catch (err) {
      return { status: 400, body: badRequest((err as Error).message) };
    }
    const rvText = query.get('resourceVersion') ?? '';
    const from = rvText === '' || rvText === '0' ? null : Number(rvText);
    if (from !== null && !Number.isInteger(from)) return { status: 400, body: badRequest(`invalid resource version: ${rvText}`) };

    res.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders(); // the server answers at once; events follow as they happen
    const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    const backlog = from === null ? null : this.store.changesSince(from);
    if (backlog === 'expired') {
      send('ERROR', expired(from!, Number(this.store.resourceVersion)));
      res.end();
      return { status: 200 };
    }
    if (backlog === null) for (const o of this.store.list(t, route.namespace).filter(matches)) send('ADDED', o);
    else for (const e of backlog) if (matches(e.object)) send(e.type, e.object);

    const stop = () => {
      clearTimeout(timer);
      unsubscribe();
      this.open.delete(watch);
    };
    const end = () => {
      stop();
      res.end();
    };
    const unsubscribe = this.store.subscribe((e: StoreEvent) => {
      if (matches(e.object)) send(e.type, e.object);
    });
    const seconds = Number(query.get('timeoutSeconds') ?? DEFAULT_WATCH_SECONDS);
    const timer = setTimeout(
      () => {
        if (query.get('allowWatchBookmarks') === 'true') {
          send('BOOKMARK', { kind: t.kind, apiVersion: apiVersionOf(t), metadata: { resourceVersion: this.store.resourceVersion } });
        }
        end();
      },
      Math.max(0, seconds) * 1000,
    );
    const watch: OpenWatch = {
      res,
      expire: () => {
        send('ERROR', expired(Number(this.store.resourceVersion) - 1, Number(this.store.resourceVersion)));
        end();
      },
    };
    this.open.add(watch);
    res.on('close', stop);
    return { status: 200 };
  }

  /** Cuts every open watch's connection without ending its stream (the client sees a dropped connection). */
  drop(): number {
    const n = this.open.size;
    for (const w of this.open) w.res.socket?.destroy();
    return n;
  }

  /** Ends every open watch with ERROR 410 Expired, as the server does when a watcher falls too far behind. */
  expire(): number {
    const n = this.open.size;
    for (const w of [...this.open]) w.expire();
    return n;
  }
}
