/**
 * The resync pass's view of the cluster: Flux objects from the pass's own list calls, workloads, pods
 * and routing objects from one list call per (kind, namespace), each kept for a short while. A resync with nothing
 * changed then costs a few list calls per namespace, not a GET per workload. Only reconciles that
 * nothing but the resync asked for read it; events and re-checks read fresh.
 */
import { KubeError } from '../common/errors.js';
import { selectorMatches, type LabelSelector } from '../flux/label-selector.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { FluxKind, K8sObject, KubeReader, PodView, RoutingKind, WorkloadKind } from './kube-types.js';

/** How long a listing answers for the pass before it is read again (less when the resync runs more often). */
export const LISTING_MAX_AGE_MS = 30_000;
/** Longest delay a Node timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Runs `fn` after `ms` without keeping the process alive for it. */
const unrefTimer = (fn: () => void, ms: number) => void setTimeout(fn, ms).unref();

export interface PassListings {
  /** The reader the resync and its reconciles use. */
  reader: KubeReader;
  /** A new pass starts: forget every listing. */
  begin(): void;
}

interface Entry<T> {
  at: number;
  value: Promise<T>;
}

interface FluxListing {
  namespaces: readonly string[];
  byKey: Map<string, K8sObject>;
}

const forbidden = (err: unknown) => err instanceof KubeError && (err.status === 403 || err.status === 401);
/** A routing list the pass cannot use: refused, or of a kind the API does not serve (a CRD such as HTTPRoute not installed). */
const unservedOrForbidden = (err: unknown) => forbidden(err) || (err instanceof KubeError && err.status === 404);

/**
 * `passIntervalMs` (RESYNC_INTERVAL) caps the age of every listing: no cached read is older than the
 * interval the user asked for, and `begin()` forgets everything an earlier pass read. `later` (tests) runs
 * the release of a listing that aged out; by default an unref'd timer.
 */
export function createPassListings(
  base: KubeReader,
  o: { now: () => number; maxAgeMs?: number; passIntervalMs?: number; later?: (fn: () => void, ms: number) => void },
): PassListings {
  const maxAgeMs = Math.min(o.maxAgeMs ?? LISTING_MAX_AGE_MS, o.passIntervalMs ?? Infinity);
  const flux = new Map<FluxKind, { at: number; listing: FluxListing }>();
  const lists = new Map<string, Entry<unknown>>();
  /** (kind, namespace) pairs whose list RBAC refuses: read those by name, as before. */
  const unlistable = new Set<string>();

  /**
   * Forgets `map`'s `key` once `maxAgeMs` passed, unless a newer entry replaced it: a listing of thousands of
   * workloads is not held until the next pass (RESYNC_INTERVAL) after it stopped answering.
   */
  function expire<K, V extends { at: number }>(map: Map<K, V>, key: K, entry: V): void {
    if (!(maxAgeMs <= MAX_TIMER_MS)) return;
    (o.later ?? unrefTimer)(() => {
      if (map.get(key) === entry) map.delete(key);
    }, maxAgeMs);
  }

  /** One list per key while fresh; concurrent callers share it; a failed list is not kept. */
  function listed<T>(key: string, read: () => Promise<T>): Promise<T> {
    const hit = lists.get(key) as Entry<T> | undefined;
    if (hit && o.now() - hit.at <= maxAgeMs) return hit.value;
    const value = read();
    const entry = { at: o.now(), value };
    lists.set(key, entry);
    expire(lists, key, entry);
    value.catch(() => {
      if (lists.get(key)?.value === value) lists.delete(key);
    });
    return value;
  }

  const byName = (objects: K8sObject[]) => new Map(objects.map((x) => [x.metadata.name, x]));

  /** One object of a (kind, namespace) from the pass's list of it; read by name when `unusable(err)` says the list cannot serve. */
  async function fromList(
    key: string,
    name: string,
    reads: { list: () => Promise<K8sObject[]>; get: () => Promise<K8sObject | null>; unusable: (err: unknown) => boolean },
  ): Promise<K8sObject | null> {
    const { list, get } = reads;
    if (unlistable.has(key)) return get();
    try {
      const objects = await listed(key, async () => byName(await list()));
      return objects.get(name) ?? null;
    } catch (err) {
      if (!reads.unusable(err)) throw err;
      unlistable.add(key);
      return get();
    }
  }

  const reader: KubeReader = {
    async listFluxObjects(kind, namespaces) {
      const objects = await base.listFluxObjects(kind, namespaces);
      const byKey = new Map(objects.map((x) => [`${x.metadata.namespace}/${x.metadata.name}`, x]));
      const entry = { at: o.now(), listing: { namespaces: [...namespaces], byKey } };
      flux.set(kind, entry);
      expire(flux, kind, entry);
      return objects;
    },
    async getFluxObject(ref: SourceRef) {
      const hit = flux.get(ref.kind);
      const covers =
        hit && o.now() - hit.at <= maxAgeMs && (hit.listing.namespaces.length === 0 || hit.listing.namespaces.includes(ref.namespace));
      if (!covers) return base.getFluxObject(ref);
      return hit.listing.byKey.get(`${ref.namespace}/${ref.name}`) ?? null;
    },
    getWorkload: (kind: WorkloadKind, namespace: string, name: string) =>
      fromList(`${kind}/${namespace}`, name, {
        list: () => base.listWorkloads(kind, namespace),
        get: () => base.getWorkload(kind, namespace, name),
        unusable: forbidden,
      }),
    listWorkloads: (kind, namespace) => base.listWorkloads(kind, namespace),
    async listPods(namespace: string, selector: LabelSelector | undefined): Promise<PodView[]> {
      const all = await listed(`pods/${namespace}`, () => base.listPods(namespace, undefined));
      return selector === undefined ? all : all.filter((p) => selectorMatches(selector, p.labels));
    },
    getRoutingObject: (kind: RoutingKind, namespace: string, name: string) =>
      fromList(`${kind}/${namespace}`, name, {
        list: () => base.listRoutingObjects(kind, namespace),
        get: () => base.getRoutingObject(kind, namespace, name),
        unusable: unservedOrForbidden,
      }),
    listRoutingObjects: (kind, namespace) => base.listRoutingObjects(kind, namespace),
    getNamespace: (name) => base.getNamespace(name),
    getSecret: (namespace, name) => base.getSecret(namespace, name),
    ...(base.getConfigMap ? { getConfigMap: base.getConfigMap.bind(base) } : {}),
    getServiceAccountPullSecrets: (namespace, name) => base.getServiceAccountPullSecrets(namespace, name),
  };

  return {
    reader,
    begin() {
      flux.clear();
      lists.clear();
      unlistable.clear();
    },
  };
}
