/**
 * Watches of the workloads that are rolling out: one LIST + WATCH per (kind, namespace) while anything
 * there is held, so 200 rollouts in one namespace cost one connection. Each watch resumes from the last
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
}

interface Group {
  kind: WorkloadKind;
  namespace: string;
  /** Where to resume; undefined: list first. */
  rv: string | undefined;
  failures: number;
  /** False once reported lost, until a list or watch works again. */
  held: boolean;
  released: boolean;
  handle: WatchHandle | undefined;
  /** Ends the current wait early (on release). */
  wake: (() => void) | undefined;
}

const groupKey = (kind: WorkloadKind, namespace: string) => `${kind}/${namespace}`;
const refused = (err: unknown) => err instanceof KubeError && (err.status === 401 || err.status === 403 || err.status === 404);

/** Delay before retry after `failures` failures in a row: the first at once, then 1 s, 2 s, … 30 s, less up to a quarter. */
export function watchRetryDelay(failures: number, random: () => number = Math.random): number {
  if (failures <= 1) return 0;
  const base = Math.min(WATCH_RETRY_CAP_MS, WATCH_RETRY_BASE_MS * 2 ** Math.min(failures - 2, 20));
  return Math.round(base * (1 - random() * 0.25));
}

/** The bounded set of (kind, namespace) watches, held while something there rolls out. */
export class WorkloadWatches {
  private readonly groups = new Map<string, Group>();
  private readonly random: () => number;
  private readonly max: number;

  constructor(private readonly o: WorkloadWatchOptions) {
    this.random = o.random ?? Math.random;
    this.max = o.maxWatches ?? MAX_WORKLOAD_WATCHES;
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
    const k = groupKey(kind, namespace);
    const existing = this.groups.get(k);
    if (existing) return existing.held;
    if (this.groups.size >= this.max) return false;
    const g: Group = { kind, namespace, rv: undefined, failures: 0, held: true, released: false, handle: undefined, wake: undefined };
    this.groups.set(k, g);
    void this.run(g);
    return true;
  }

  /** Nothing there rolls out any more: closes the watch. */
  release(kind: WorkloadKind, namespace: string): void {
    const k = groupKey(kind, namespace);
    const g = this.groups.get(k);
    if (!g) return;
    this.groups.delete(k);
    g.released = true;
    g.handle?.close();
    g.wake?.();
  }

  /** Closes every watch (shutdown). */
  stop(): void {
    for (const g of [...this.groups.values()]) this.release(g.kind, g.namespace);
  }

  private async run(g: Group): Promise<void> {
    const path = workloadCollectionPath(g.kind, g.namespace);
    const log = this.o.log.child({ watch: `${g.kind}/${g.namespace}` });
    // Released (or replaced) while a request was out: stop here.
    const released = () => this.groups.get(groupKey(g.kind, g.namespace)) !== g;
    while (!g.released) {
      if (g.rv === undefined) {
        let listing;
        try {
          listing = await this.o.transport.list(path, LIST_TIMEOUT_MS);
          if (released()) return;
          g.rv = listing.resourceVersion;
          this.recovered(g, log);
        } catch (err) {
          await this.failed(g, err, log);
          continue;
        }
        this.deliver(log, () => this.o.events.synced(g.kind, g.namespace, listing.items));
      }
      const started = this.o.now();
      const timeoutSeconds = WATCH_TIMEOUT_S + Math.floor(this.random() * WATCH_TIMEOUT_S * 0.2);
      const query = { resourceVersion: g.rv, allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds) };
      log.debug({ resourceVersion: g.rv }, 'watching workloads');
      g.handle = this.o.transport.watch(
        path,
        query,
        (e) => {
          g.rv = e.object.metadata.resourceVersion ?? g.rv;
          this.recovered(g, log);
          const type = e.type;
          if (type !== 'BOOKMARK') this.deliver(log, () => this.o.events.changed(g.kind, g.namespace, type, e.object));
        },
        timeoutSeconds * 1000 + WATCH_IDLE_GRACE_MS,
      );
      const end = await g.handle.ended;
      g.handle = undefined;
      if (released()) return;
      const lasted = this.o.now() - started;
      // A clean end is the server's timeout; one right after the start would spin, so it counts as a failure.
      if (end.reason === 'closed' && lasted >= WATCH_STABLE_MS) continue;
      if (end.reason === 'gone') {
        log.debug({ resourceVersion: g.rv }, 'watch resourceVersion expired (410): listing again');
        g.rv = undefined;
        continue;
      }
      if (lasted >= WATCH_STABLE_MS) g.failures = 0;
      await this.failed(g, end.reason === 'failed' ? end.error : new KubeError(`watch ended after ${lasted} ms`), log);
    }
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
      log.warn({ err: errorMessage(err) }, 'cannot watch workloads: rollouts there are re-checked on the schedule');
      this.o.events.lost(g.kind, g.namespace, errorMessage(err));
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
