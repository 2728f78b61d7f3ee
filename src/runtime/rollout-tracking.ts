import type { Logger } from 'pino';
import { errorMessage } from '../common/errors.js';
import type { K8sObject, KubeReader, SourceRef, WorkloadKind } from '../kube/kube-types.js';
import type { WorkloadWatchEvents, WorkloadWatches } from '../kube/rollout-watch.js';
import { recheckDelay } from '../lifecycle/recheck-delay.js';
import { rolloutOf, type RolloutKind } from '../lifecycle/rollout.js';
import { bridgeAnnotations, isOptedIn } from '../metadata/resolve-target.js';
import type { QueueStore } from '../store/queue-store.js';

/** A workload's rollout as a watch compares it: its state (`rolloutOf`), or `deleted`; and the resourceVersion it was read at. */
interface Sighting {
  verdict: string;
  rv: string | undefined;
}

interface Registration extends Sighting {
  kind: RolloutKind;
  namespace: string;
  /** The sources whose last reconcile found it rolling out (or paused), by source key. */
  sources: Map<string, SourceRef>;
}

export interface RolloutTrackingOptions {
  watches: Pick<WorkloadWatches, 'hold' | 'release'>;
  /** A followed workload finished, failed, was paused or resumed, or went away: reconcile these sources now. */
  wake: (refs: SourceRef[]) => void;
  /** Their workloads' watch is lost: these sources go back to the re-check schedule. */
  fallBack: (refs: SourceRef[]) => void;
  log: Logger;
}

const sourceKey = (r: SourceRef) => `${r.kind}/${r.namespace}/${r.name}`;
const workloadKey = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
const groupKey = (kind: string, namespace: string) => `${kind}/${namespace}/`;
const isRolloutKind = (kind: WorkloadKind): kind is RolloutKind => kind !== 'ReplicaSet';

/**
 * Follows the workloads that reconciles found rolling out or paused, through the (kind, namespace)
 * watches, and reconciles their sources as soon as a watch shows one complete, failed, paused, resumed
 * or deleted: Flux sends no event when a rollout ends. What a reconcile read is compared with what the
 * watch saw last, so a change that landed between the read and the registration is not missed.
 */
export class RolloutTracking implements WorkloadWatchEvents {
  private readonly registrations = new Map<string, Registration>();
  private readonly bySource = new Map<string, Set<string>>();
  /** Registrations per (kind, namespace): the watch is held while this is above zero. */
  private readonly perGroup = new Map<string, number>();
  /** The latest sighting by a watch of every workload in a watched (kind, namespace). */
  private readonly observed = new Map<string, Sighting>();

  constructor(private readonly o: RolloutTrackingOptions) {}

  /**
   * For one reconcile of `ref`: a reader that notes the workloads it reads, and `end()` to call once the
   * reconcile succeeded. `end` follows the opted-in workloads still rolling out or paused (and drops the
   * rest) and answers whether every one of them is under a held watch.
   */
  begin(ref: SourceRef, base: KubeReader): { reader: KubeReader; end: () => boolean } {
    const read = new Map<string, { kind: RolloutKind; object: K8sObject }>();
    const reader: KubeReader = {
      ...base,
      async getWorkload(kind, namespace, name) {
        const object = await base.getWorkload(kind, namespace, name);
        if (object && isRolloutKind(kind)) read.set(workloadKey(kind, namespace, name), { kind, object });
        return object;
      },
    };
    const end = () => {
      const follow = [...read.values()].flatMap(({ kind, object }) => {
        if (!isOptedIn(bridgeAnnotations(object))) return [];
        const verdict = rolloutOf(kind, object).state;
        if (verdict !== 'progressing' && verdict !== 'paused') return [];
        const namespace = object.metadata.namespace ?? '';
        return [{ kind, namespace, name: object.metadata.name, verdict, rv: object.metadata.resourceVersion }];
      });
      return this.track(ref, follow);
    };
    return { reader, end };
  }

  /** Replaces what `ref` follows; true when it follows something and every one is under a held watch. */
  private track(ref: SourceRef, follow: Array<Sighting & { kind: RolloutKind; namespace: string; name: string }>): boolean {
    const src = sourceKey(ref);
    const keys = new Set(follow.map((w) => workloadKey(w.kind, w.namespace, w.name)));
    for (const k of this.bySource.get(src) ?? []) if (!keys.has(k)) this.untrack(k, src);
    let held = follow.length > 0;
    for (const w of follow) {
      const k = workloadKey(w.kind, w.namespace, w.name);
      let reg = this.registrations.get(k);
      if (!reg) {
        reg = { kind: w.kind, namespace: w.namespace, verdict: w.verdict, rv: w.rv, sources: new Map() };
        this.registrations.set(k, reg);
      }
      if (!reg.sources.has(src)) {
        const g = groupKey(w.kind, w.namespace);
        this.perGroup.set(g, (this.perGroup.get(g) ?? 0) + 1);
      }
      reg.sources.set(src, ref);
      reg.verdict = w.verdict;
      reg.rv = w.rv;
      held = this.o.watches.hold(w.kind, w.namespace) && held;
      // The watch may have seen it change after this reconcile read it.
      const seen = this.observed.get(k);
      if (seen && seen.rv !== w.rv && seen.verdict !== w.verdict) this.saw(k, reg, seen);
    }
    if (keys.size > 0) this.bySource.set(src, keys);
    else this.bySource.delete(src);
    return held;
  }

  private untrack(k: string, src: string): void {
    const reg = this.registrations.get(k);
    if (!reg?.sources.delete(src)) return;
    if (reg.sources.size === 0) this.registrations.delete(k);
    const g = groupKey(reg.kind, reg.namespace);
    const left = (this.perGroup.get(g) ?? 1) - 1;
    if (left > 0) {
      this.perGroup.set(g, left);
      return;
    }
    this.perGroup.delete(g);
    this.forget(g);
    this.o.watches.release(reg.kind, reg.namespace);
  }

  /** Drops the sightings of a (kind, namespace) no longer watched. */
  private forget(group: string): void {
    for (const k of this.observed.keys()) if (k.startsWith(group)) this.observed.delete(k);
  }

  /** Records a sighting; wakes the sources of a followed workload whose verdict changed. */
  private saw(k: string, reg: Registration | undefined, s: Sighting): void {
    this.observed.set(k, s);
    if (!reg || reg.verdict === s.verdict) return;
    // `via: 'watch'` and the Flux objects `woken`: what bench/rollout-latency.ts attributes a status to (test/harness/wake-signals.ts).
    const woken = [...reg.sources.keys()];
    this.o.log.debug(
      { via: 'watch', workload: k, woken, was: reg.verdict, now: s.verdict },
      'rollout changed: reconciling its Flux objects',
    );
    reg.verdict = s.verdict;
    reg.rv = s.rv;
    this.o.wake([...reg.sources.values()]);
  }

  synced(kind: WorkloadKind, namespace: string, objects: K8sObject[]): void {
    const g = groupKey(kind, namespace);
    this.forget(g);
    const present = new Set<string>();
    for (const obj of objects) {
      const k = workloadKey(kind, namespace, obj.metadata.name);
      present.add(k);
      this.changed(kind, namespace, 'ADDED', obj);
    }
    for (const [k, reg] of this.registrations) {
      if (k.startsWith(g) && !present.has(k)) this.saw(k, reg, { verdict: 'deleted', rv: undefined });
    }
  }

  changed(kind: WorkloadKind, namespace: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: K8sObject): void {
    if (!isRolloutKind(kind)) return;
    const k = workloadKey(kind, namespace, object.metadata.name);
    const verdict = type === 'DELETED' ? 'deleted' : rolloutOf(kind, object).state;
    this.saw(k, this.registrations.get(k), { verdict, rv: object.metadata.resourceVersion });
  }

  lost(kind: WorkloadKind, namespace: string, why: string): void {
    const g = groupKey(kind, namespace);
    this.forget(g);
    const refs = new Map<string, SourceRef>();
    for (const [k, reg] of this.registrations) if (k.startsWith(g)) for (const [s, ref] of reg.sources) refs.set(s, ref);
    if (refs.size === 0) return;
    this.o.log.info({ watch: `${kind}/${namespace}`, fluxObjects: refs.size, why }, 'rollouts go back to the re-check schedule');
    this.o.fallBack([...refs.values()]);
  }

  /** How many workloads are followed, and for how many sources. */
  get size(): { workloads: number; sources: number } {
    return { workloads: this.registrations.size, sources: this.bySource.size };
  }
}

/**
 * The tracking's two ways into the queue. `wake` makes sources due now (a row being reconciled is marked
 * to run once more; `enqueue` alone would leave a pending re-check's later due time); `fallBack` makes them
 * due after the first re-check delay, where the re-check schedule takes over. A write that fails is logged:
 * the re-check already scheduled still comes.
 */
export function queueWakes(o: {
  queue: Pick<QueueStore, 'enqueue' | 'schedule'>;
  notify: () => void;
  now: () => number;
  log: Logger;
}): Pick<RolloutTrackingOptions, 'wake' | 'fallBack'> {
  const write = (refs: SourceRef[], at: (now: number) => number, markActive: boolean) => {
    const now = o.now();
    try {
      for (const ref of refs) {
        if (markActive) o.queue.enqueue(ref, now);
        o.queue.schedule(ref, at(now));
      }
    } catch (err) {
      o.log.warn({ err: errorMessage(err), fluxObjects: refs.map(sourceKey) }, 'could not queue Flux objects whose rollout changed');
      return;
    }
    o.notify();
  };
  return {
    wake: (refs) => write(refs, (now) => now, true),
    fallBack: (refs) => write(refs, (now) => now + recheckDelay(0), false),
  };
}
