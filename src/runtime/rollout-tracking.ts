import type { Logger } from 'pino';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { K8sObject, KubeReader, WorkloadKind } from '../kube/kube-types.js';
import type { WorkloadWatchEvents, WorkloadWatches } from '../kube/rollout-watch.js';
import type { WatchTransport } from '../kube/watch-stream.js';
import { rolloutOf, type RolloutKind } from '../lifecycle/rollout.js';
import { bridgeAnnotations, isOptedIn } from '../metadata/resolve-target.js';
import type { SpokeFollowing } from '../reconcile/source-cluster.js';

/** A workload's rollout as a watch compares it: its state (`rolloutOf`), or `deleted`; and the resourceVersion it was read at. */
interface Sighting {
  verdict: string;
  rv: string | undefined;
}

interface Registration extends Sighting {
  /** '' for the bridge's own cluster, else the spoke's name. */
  cluster: string;
  kind: RolloutKind;
  namespace: string;
  /** The sources whose last reconcile found it rolling out (or paused), by source key. */
  sources: Map<string, SourceRef>;
}

type Watches = Pick<WorkloadWatches, 'hold' | 'release'> & Partial<Pick<WorkloadWatches, 'stop'>>;

export interface RolloutTrackingOptions {
  /** The bridge's own cluster's watches. */
  watches: Watches;
  /** A spoke's watches over its own transport, reporting to `events` (none: a spoke's rollouts are re-checked only). */
  spokeWatches?: (cluster: string, transport: WatchTransport, events: WorkloadWatchEvents) => Watches;
  /** A followed workload finished, failed, was paused or resumed, or went away: reconcile these sources now. */
  wake: (refs: SourceRef[]) => void;
  /** Their workloads' watch is lost: these sources go back to the re-check schedule. */
  fallBack: (refs: SourceRef[]) => void;
  log: Logger;
}

const sourceKey = (r: SourceRef) => `${r.kind}/${r.namespace}/${r.name}`;
const workloadKey = (cluster: string, kind: string, namespace: string, name: string) => `${cluster}|${kind}/${namespace}/${name}`;
const groupKey = (cluster: string, kind: string, namespace: string) => `${cluster}|${kind}/${namespace}/`;
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
  /** Each spoke's watches, and the transport they were built over. */
  private readonly spokes = new Map<string, { transport: WatchTransport; watches: Watches }>();

  constructor(private readonly o: RolloutTrackingOptions) {}

  /** The watches of a cluster: the bridge's own (''), or the spoke's (built over its current transport). */
  private watchesOf(cluster: string): Watches | undefined {
    return cluster === '' ? this.o.watches : this.spokes.get(cluster)?.watches;
  }

  /** The spoke's watches over `transport`; new credentials (a new transport) move the held watches onto it. */
  private spokeOver(cluster: string, transport: WatchTransport): void {
    const kept = this.spokes.get(cluster);
    if (!this.o.spokeWatches || kept?.transport === transport) return;
    kept?.watches.stop?.();
    const events: WorkloadWatchEvents = {
      synced: (kind, ns, objects) => this.syncedIn(cluster, kind, ns, objects),
      changed: (kind, ns, type, object) => this.changedIn(cluster, kind, ns, type, object),
      lost: (kind, ns, why) => this.lostIn(cluster, kind, ns, why),
    };
    const watches = this.o.spokeWatches(cluster, transport, events);
    this.spokes.set(cluster, { transport, watches });
    if (!kept) return;
    for (const reg of this.registrations.values()) if (reg.cluster === cluster) watches.hold(reg.kind, reg.namespace);
  }

  /**
   * For one reconcile of `ref`: a reader that notes the workloads it reads, and `end()` to call once the
   * reconcile succeeded. `end` follows the opted-in workloads still rolling out or paused (and drops the
   * rest) and answers whether every one of them is under a held watch.
   */
  begin(ref: SourceRef, base: KubeReader): { reader: KubeReader; end: () => boolean } {
    const read = new Map<string, { cluster: string; kind: RolloutKind; object: K8sObject }>();
    const noting = (cluster: string, inner: KubeReader): KubeReader => ({
      ...inner,
      async getWorkload(kind, namespace, name) {
        const object = await inner.getWorkload(kind, namespace, name);
        if (object && isRolloutKind(kind)) read.set(workloadKey(cluster, kind, namespace, name), { cluster, kind, object });
        return object;
      },
    });
    const reader: KubeReader & SpokeFollowing = {
      ...noting('', base),
      // A remote Flux object's workloads: read in the spoke, followed by the spoke's own watches.
      throughSpoke: (cluster, inner, transport) => {
        this.spokeOver(cluster, transport);
        return noting(cluster, inner);
      },
    };
    const end = () => {
      const follow = [...read.values()].flatMap(({ cluster, kind, object }) => {
        if (!isOptedIn(bridgeAnnotations(object))) return [];
        const verdict = rolloutOf(kind, object).state;
        if (verdict !== 'progressing' && verdict !== 'paused') return [];
        const namespace = object.metadata.namespace ?? '';
        return [{ cluster, kind, namespace, name: object.metadata.name, verdict, rv: object.metadata.resourceVersion }];
      });
      return this.track(ref, follow);
    };
    return { reader, end };
  }

  /** Replaces what `ref` follows; true when it follows something and every one is under a held watch. */
  private track(
    ref: SourceRef,
    follow: Array<Sighting & { cluster: string; kind: RolloutKind; namespace: string; name: string }>,
  ): boolean {
    const src = sourceKey(ref);
    const keys = new Set(follow.map((w) => workloadKey(w.cluster, w.kind, w.namespace, w.name)));
    for (const k of this.bySource.get(src) ?? []) if (!keys.has(k)) this.untrack(k, src);
    let held = follow.length > 0;
    for (const w of follow) {
      const k = workloadKey(w.cluster, w.kind, w.namespace, w.name);
      let reg = this.registrations.get(k);
      if (!reg) {
        reg = { cluster: w.cluster, kind: w.kind, namespace: w.namespace, verdict: w.verdict, rv: w.rv, sources: new Map() };
        this.registrations.set(k, reg);
      }
      if (!reg.sources.has(src)) {
        const g = groupKey(w.cluster, w.kind, w.namespace);
        this.perGroup.set(g, (this.perGroup.get(g) ?? 0) + 1);
      }
      reg.sources.set(src, ref);
      reg.verdict = w.verdict;
      reg.rv = w.rv;
      held = (this.watchesOf(w.cluster)?.hold(w.kind, w.namespace) ?? false) && held;
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
    const g = groupKey(reg.cluster, reg.kind, reg.namespace);
    const left = (this.perGroup.get(g) ?? 1) - 1;
    if (left > 0) {
      this.perGroup.set(g, left);
      return;
    }
    this.perGroup.delete(g);
    this.forget(g);
    this.watchesOf(reg.cluster)?.release(reg.kind, reg.namespace);
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
      {
        ...(reg.cluster ? { cluster: reg.cluster } : {}),
        workload: k.slice(k.indexOf('|') + 1),
        woken,
        was: reg.verdict,
        now: s.verdict,
        via: 'watch',
      },
      'rollout changed: reconciling its Flux objects',
    );
    reg.verdict = s.verdict;
    reg.rv = s.rv;
    this.o.wake([...reg.sources.values()]);
  }

  synced(kind: WorkloadKind, namespace: string, objects: K8sObject[]): void {
    this.syncedIn('', kind, namespace, objects);
  }

  changed(kind: WorkloadKind, namespace: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: K8sObject): void {
    this.changedIn('', kind, namespace, type, object);
  }

  lost(kind: WorkloadKind, namespace: string, why: string): void {
    this.lostIn('', kind, namespace, why);
  }

  private syncedIn(cluster: string, kind: WorkloadKind, namespace: string, objects: K8sObject[]): void {
    const g = groupKey(cluster, kind, namespace);
    this.forget(g);
    const present = new Set<string>();
    for (const obj of objects) {
      const k = workloadKey(cluster, kind, namespace, obj.metadata.name);
      present.add(k);
      this.changedIn(cluster, kind, namespace, 'ADDED', obj);
    }
    for (const [k, reg] of this.registrations) {
      if (k.startsWith(g) && !present.has(k)) this.saw(k, reg, { verdict: 'deleted', rv: undefined });
    }
  }

  private changedIn(
    cluster: string,
    kind: WorkloadKind,
    namespace: string,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    object: K8sObject,
  ): void {
    if (!isRolloutKind(kind)) return;
    const k = workloadKey(cluster, kind, namespace, object.metadata.name);
    const verdict = type === 'DELETED' ? 'deleted' : rolloutOf(kind, object).state;
    this.saw(k, this.registrations.get(k), { verdict, rv: object.metadata.resourceVersion });
  }

  private lostIn(cluster: string, kind: WorkloadKind, namespace: string, why: string): void {
    const g = groupKey(cluster, kind, namespace);
    this.forget(g);
    const refs = new Map<string, SourceRef>();
    for (const [k, reg] of this.registrations) if (k.startsWith(g)) for (const [s, ref] of reg.sources) refs.set(s, ref);
    if (refs.size === 0) return;
    this.o.log.info(
      { ...(cluster ? { cluster } : {}), watch: `${kind}/${namespace}`, fluxObjects: refs.size, why },
      'rollouts go back to the re-check schedule',
    );
    this.o.fallBack([...refs.values()]);
  }

  /** Closes every spoke's watches (shutdown). */
  stopSpokes(): void {
    for (const s of this.spokes.values()) s.watches.stop?.();
    this.spokes.clear();
  }

  /** How many workloads are followed, and for how many sources. */
  get size(): { workloads: number; sources: number } {
    return { workloads: this.registrations.size, sources: this.bySource.size };
  }
}
