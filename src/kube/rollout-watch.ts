/**
 * Watches of the workloads that are rolling out, held while anything there is held: one LIST + WATCH per
 * (kind, namespace) (scope `namespace`, the bridge's own cluster), so 200 rollouts in one namespace cost one
 * connection; or one WATCH per kind across the cluster (scope `cluster`, a spoke), fed by one LIST per held
 * namespace, its events for the other namespaces dropped unread. Each watch resumes from the last
 * resourceVersion it saw when the server ends it or the connection drops, lists again on 410 Gone, and
 * backs off on failures. A watch refused (no `list`/`watch` RBAC), or failing again and again, is
 * reported `lost`: its workloads go back to the re-check schedule until it is held again.
 */
import type { Logger } from 'pino';
import { KubeError, errorMessage } from '../common/errors.js';
import { workloadCollectionPath } from './kube-client.js';
import type { K8sObject, WorkloadKind } from './kube-types.js';
import type { WatchHandle, WatchTransport } from './watch-stream.js';

/** Most (kind, namespace) watches held at once; more rollouts than that fall back to re-checks. */
export const MAX_WORKLOAD_WATCHES = 64;
/** The server is asked to end each watch after this long (plus up to a fifth more, spread): it resumes from its resourceVersion. */
export const WATCH_TIMEOUT_S = 300;
/** A watch silent this much longer than its timeout is taken as a dead connection. */
const WATCH_IDLE_GRACE_MS = 30_000;
/** First wait after a second failure in a row (the first resumes at once), doubled per failure up to the cap. */
export const WATCH_RETRY_BASE_MS = 1_000;
export const WATCH_RETRY_CAP_MS = 30_000;
/** Failures in a row after which a watch counts as lost: its workloads are re-checked on the schedule meanwhile. */
export const WATCH_LOST_AFTER_FAILURES = 3;
/** A watch that lasted this long before it failed was healthy: the failure count starts again. */
const WATCH_STABLE_MS = 10_000;
/** How long to wait before asking again after the API refused a list or watch (401, 403, 404). */
export const WATCH_REFUSED_RETRY_MS = 10 * 60_000;
/** Timeout of each list request. */
const LIST_TIMEOUT_MS = 10_000;

/** What the watches report. */
export interface WorkloadWatchEvents {
  /** The group was listed (at start, or after 410 Gone): every object of the kind in the namespace now. */
  synced(kind: WorkloadKind, namespace: string, objects: K8sObject[]): void;
  /** One change seen by the watch. */
  changed(kind: WorkloadKind, namespace: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: K8sObject): void;
  /** The group's watch cannot be held now: its workloads need the re-check schedule. */
  lost(kind: WorkloadKind, namespace: string, why: string): void;
}

export interface WorkloadWatchOptions {
  transport: WatchTransport;
  events: WorkloadWatchEvents;
  log: Logger;
  now: () => number;
  random?: () => number;
  maxWatches?: number;
  /** `namespace` (default): a watch per (kind, namespace); `cluster`: one per kind, across the cluster. */
  scope?: 'namespace' | 'cluster';
}

interface Group {
  key: string;
  kind: WorkloadKind;
  /** The namespace the watch is of; undefined: the kind across the cluster. */
  namespace: string | undefined;
  /** The namespaces held: their objects' events are delivered, the others' dropped. */
  namespaces: Set<string>;
  /** Held namespaces to list before (or while) watching: all of them when the watch (re)starts, else those that joined. */
  unlisted: Set<string>;
  /** Where to resume; undefined: list first. */
  rv: string | undefined;
  failures: number;
  /** False once reported lost, until a list or watch works again. */
  held: boolean;
  released: boolean;
  handle: WatchHandle | undefined;
  /** When the current watch started. */
  started: number;
  /** Ends the current wait early (on release). */
  wake: (() => void) | undefined;
  /** Ends the wait on a running watch: a namespace joined and is listed meanwhile. */
  joined: (() => void) | undefined;
}

const refused = (err: unknown) => err instanceof KubeError && (err.status === 401 || err.status === 403 || err.status === 404);

/** Delay before retry after `failures` failures in a row: the first at once, then 1 s, 2 s, … 30 s, less up to a quarter. */
export function watchRetryDelay(failures: number, random: () => number = Math.random): number {
  if (failures <= 1) return 0;
  const base = Math.min(WATCH_RETRY_CAP_MS, WATCH_RETRY_BASE_MS * 2 ** Math.min(failures - 2, 20));
  return Math.round(base * (1 - random() * 0.25));
}

/** The bounded set of watches, held while something there rolls out. */
export class WorkloadWatches {
  private readonly groups = new Map<string, Group>();
  private readonly random: () => number;
  private readonly max: number;
  private readonly clusterWide: boolean;

  constructor(private readonly o: WorkloadWatchOptions) {
    this.random = o.random ?? Math.random;
    this.max = o.maxWatches ?? MAX_WORKLOAD_WATCHES;
    this.clusterWide = o.scope === 'cluster';
  }

  /** Watches held or starting now. */
  get size(): number {
    return this.groups.size;
  }

  /**
   * Keeps a watch on the kind in the namespace. True while it is held or starting (a start that fails
   * is reported `lost`); false when it is lost, or when MAX_WORKLOAD_WATCHES are held already.
   */
  hold(kind: WorkloadKind, namespace: string): boolean {
    const key = this.clusterWide ? kind : `${kind}/${namespace}`;
    const existing = this.groups.get(key);
    if (existing) {
      if (!existing.namespaces.has(namespace)) {
        existing.namespaces.add(namespace);
        existing.unlisted.add(namespace);
        existing.joined?.();
      }
      return existing.held;
    }
    if (this.groups.size >= this.max) return false;
    const g: Group = {
      key,
      kind,
      namespace: this.clusterWide ? undefined : namespace,
      namespaces: new Set([namespace]),
      unlisted: new Set(),
      rv: undefined,
      failures: 0,
      held: true,
      released: false,
      handle: undefined,
      started: 0,
      wake: undefined,
      joined: undefined,
    };
    this.groups.set(key, g);
    void this.run(g);
    return true;
  }

  /** Nothing there rolls out any more: drops the namespace, and closes the watch once no namespace is held. */
  release(kind: WorkloadKind, namespace: string): void {
    const g = this.groups.get(this.clusterWide ? kind : `${kind}/${namespace}`);
    if (!g?.namespaces.delete(namespace)) return;
    g.unlisted.delete(namespace);
    if (g.namespaces.size === 0) this.close(g);
  }

  /** Closes every watch (shutdown). */
  stop(): void {
    for (const g of [...this.groups.values()]) this.close(g);
  }

  private close(g: Group): void {
    this.groups.delete(g.key);
    g.released = true;
    g.handle?.close();
    g.wake?.();
    g.joined?.();
  }

  private async run(g: Group): Promise<void> {
    const log = this.o.log.child({ watch: `${g.kind}/${g.namespace ?? '*'}` });
    // Released (or replaced) while a request was out: stop here.
    const released = () => this.groups.get(g.key) !== g;
    while (!g.released) {
      if (g.rv === undefined) g.unlisted = new Set(g.namespaces);
      if (!(await this.listUnlisted(g, log)) || released()) continue;
      if (g.unlisted.size > 0) continue; // one joined while listing
      g.handle ??= this.watch(g, log);
      const next = await Promise.race([g.handle.ended, new Promise<'joined'>((resolve) => (g.joined = () => resolve('joined')))]);
      g.joined = undefined;
      if (released()) return;
      if (next === 'joined') continue; // the watch stays; the new namespace is listed
      g.handle = undefined;
      const lasted = this.o.now() - g.started;
      // A clean end is the server's timeout; one right after the start would spin, so it counts as a failure.
      if (next.reason === 'closed' && lasted >= WATCH_STABLE_MS) continue;
      if (next.reason === 'gone') {
        log.debug({ resourceVersion: g.rv }, 'watch resourceVersion expired (410): listing again');
        g.rv = undefined;
        continue;
      }
      if (lasted >= WATCH_STABLE_MS) g.failures = 0;
      await this.failed(g, next.reason === 'failed' ? next.error : new KubeError(`watch ended after ${lasted} ms`), log);
    }
  }

  /**
   * Lists each held namespace not listed yet, reporting it `synced`. A watch (re)starts from the first list's
   * version, so no namespace misses a change (a later one may hear again a change it listed: a wake too many,
   * never one missed). False after a failure (waited for).
   */
  private async listUnlisted(g: Group, log: Logger): Promise<boolean> {
    for (const ns of [...g.unlisted]) {
      let listing;
      try {
        listing = await this.o.transport.list(workloadCollectionPath(g.kind, ns), LIST_TIMEOUT_MS);
      } catch (err) {
        if (!g.released) await this.failed(g, err, log);
        return false;
      }
      if (g.released) return false;
      if (!g.unlisted.delete(ns)) continue; // released meanwhile
      g.rv ??= listing.resourceVersion;
      this.recovered(g, log);
      this.deliver(log, () => this.o.events.synced(g.kind, ns, listing.items));
    }
    return true;
  }

  private watch(g: Group, log: Logger): WatchHandle {
    g.started = this.o.now();
    const timeoutSeconds = WATCH_TIMEOUT_S + Math.floor(this.random() * WATCH_TIMEOUT_S * 0.2);
    const query = { resourceVersion: g.rv ?? '', allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds) };
    log.debug({ resourceVersion: g.rv }, 'watching workloads');
    return this.o.transport.watch(
      workloadCollectionPath(g.kind, g.namespace),
      query,
      (e) => {
        g.rv = e.object.metadata.resourceVersion ?? g.rv;
        this.recovered(g, log);
        const type = e.type;
        if (type === 'BOOKMARK') return;
        const ns = g.namespace ?? e.object.metadata.namespace ?? '';
        // Across the cluster: an object of a namespace nobody follows is dropped here, before any reading of it.
        if (g.namespace === undefined && !g.namespaces.has(ns)) return;
        this.deliver(log, () => this.o.events.changed(g.kind, ns, type, e.object));
      },
      timeoutSeconds * 1000 + WATCH_IDLE_GRACE_MS,
    );
  }

  /** Hands what a watch saw to the listener; a listener's failure is logged, never thrown into the stream. */
  private deliver(log: Logger, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      log.error({ err: errorMessage(err) }, 'a workload watch event could not be handled');
    }
  }

  /** A list or watch worked: the group is held again. */
  private recovered(g: Group, log: Logger): void {
    g.failures = 0;
    if (g.held) return;
    g.held = true;
    log.info('workload watch held again');
  }

  /** Counts a failure, reports the group lost when it is refused or keeps failing, and waits before the retry. */
  private async failed(g: Group, err: unknown, log: Logger): Promise<void> {
    g.failures++;
    const isRefused = refused(err);
    if (g.held && (isRefused || g.failures >= WATCH_LOST_AFTER_FAILURES)) {
      g.held = false;
      // A spoke's watch needs list and watch of the kind in every namespace (spoke-reader's ClusterRole grants them).
      const scope =
        g.namespace === undefined && isRefused ? ' (this watch is across the cluster: it needs list and watch in all namespaces)' : '';
      log.warn({ err: errorMessage(err) + scope }, 'cannot watch workloads: rollouts there are re-checked on the schedule');
      for (const ns of [...g.namespaces]) this.o.events.lost(g.kind, ns, errorMessage(err) + scope);
    } else {
      log.debug({ err: errorMessage(err), failures: g.failures }, 'workload watch failed; resuming');
    }
    await this.sleep(g, isRefused ? WATCH_REFUSED_RETRY_MS : watchRetryDelay(g.failures, this.random));
  }

  private sleep(g: Group, ms: number): Promise<void> {
    if (ms <= 0 || g.released) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        g.wake = undefined;
        resolve();
      }
      g.wake = done;
    });
  }
}
