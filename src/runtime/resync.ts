import type { Logger } from 'pino';
import { longTimeout, type LongTimer } from '../common/timers.js';
import { errorMessage } from '../common/errors.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { FluxKind, KubeReader } from '../kube/kube-types.js';
import type { QueueStore } from '../store/queue-store.js';

const KINDS: FluxKind[] = ['Kustomization', 'HelmRelease'];

export interface ResyncOptions {
  kube: KubeReader;
  queue: QueueStore;
  namespaces: readonly string[];
  intervalMs: number;
  log: Logger;
  now: () => number;
  /** Sources that still have live deployments in the cache: listed or not, they are enqueued (orphan sweep). */
  trackedSources: () => SourceRef[];
  /** Called after each pass that enqueued something. */
  onEnqueued: () => void;
  /** Called as each pass starts (the pass listings forget what the last pass read). */
  onPassStart?: () => void;
}

/**
 * The resync loop: every interval, list every Kustomization and HelmRelease and enqueue them, so the
 * bridge is right even when Flux dropped events. Passes are awaited and never overlap.
 */
export class Resync {
  private timer: LongTimer | undefined;
  private stopped = true;
  private current: Promise<unknown> | undefined;

  constructor(private readonly o: ResyncOptions) {}

  /** Starts the loop with an immediate first pass. */
  start(): void {
    this.stopped = false;
    this.loop();
  }

  private loop(): void {
    if (this.stopped) return;
    // A pass that could not write the queue (disk full, read-only) is logged; the next one tries again.
    this.current = this.pass()
      .catch((err: unknown) => {
        this.o.log.warn({ err: errorMessage(err) }, 'resync pass failed');
      })
      .finally(() => {
        if (this.stopped) return;
        // Chained past Node's timer range: RESYNC_INTERVAL=600h fired at once, a pass after a pass.
        this.timer = longTimeout(() => this.loop(), this.o.intervalMs);
      });
  }

  /** One pass: list all sources and enqueue them. Failures are logged; the next pass tries again. */
  async pass(): Promise<number> {
    let count = 0;
    const listed = new Set<string>();
    let complete = true;
    this.o.onPassStart?.();
    for (const kind of KINDS) {
      let objects;
      try {
        objects = await this.o.kube.listFluxObjects(kind, this.o.namespaces);
      } catch (err) {
        complete = false;
        this.o.log.warn({ kind, err: errorMessage(err) }, 'resync could not list Flux objects');
        continue;
      }
      // A queue that cannot be written fails the whole pass (logged by the loop), not this listing.
      for (const o of objects) {
        if (!o.metadata.namespace) continue;
        this.o.queue.enqueue({ kind, namespace: o.metadata.namespace, name: o.metadata.name }, this.o.now(), null, true);
        listed.add(`${kind}/${o.metadata.namespace}/${o.metadata.name}`);
        count++;
      }
    }
    // A source deleted while the bridge was down sends no event: its reconcile finds it gone and cleans up.
    if (complete) {
      for (const ref of this.o.trackedSources()) {
        if (listed.has(`${ref.kind}/${ref.namespace}/${ref.name}`)) continue;
        if (this.o.namespaces.length > 0 && !this.o.namespaces.includes(ref.namespace)) continue;
        this.o.queue.enqueue(ref, this.o.now(), null, true);
        count++;
      }
    }
    if (count > 0) this.o.onEnqueued();
    this.o.log.debug({ via: 'resync', fluxObjects: count }, 'resync pass done');
    return count;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.clear();
    await this.current?.catch(() => undefined);
  }
}
