/** The fake server's object store: what etcd plus the API server's metadata handling would keep. */
import { randomUUID } from 'node:crypto';
import type { K8sObject, ObjectMeta } from '../../../src/kube/kube-types.js';
import { kubeTime } from '../kube-meta.js';
import { apiVersionOf, typeByKind, type ResourceType } from './resources.js';

/** An object as stored and served: apiVersion and kind always set, any other top-level fields kept. */
export type KubeObject = K8sObject & { apiVersion: string; kind: string; [key: string]: unknown };

/** What a test hands to put(): any object with apiVersion, kind and metadata.name. */
export interface KubeObjectInput {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta & { creationTimestamp?: string };
}

/** JSON with sorted keys, so that "spec changed" ignores key order. */
function canonical(v: unknown): string {
  // JSON.stringify(undefined) is undefined, though typed string: an absent value reads as null.
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** RFC 7386 JSON merge patch: objects merge, null deletes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** One change as a watch serves it: the object after the change (before it, for a deletion) at revision `rv`. */
export interface StoreEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

/** Changes kept for watches to resume from (the API server's watch cache holds a bounded window too). */
const HISTORY_LIMIT = 10_000;

export class ObjectStore {
  private readonly objects = new Map<string, KubeObject>();
  private revision = 1000;
  /** Recent changes, oldest first; a watch may resume from any revision at or after `oldestResumable`. */
  private history: StoreEvent[] = [];
  private oldestResumable = 1000;
  private readonly listeners = new Set<(e: StoreEvent) => void>();

  /** The current resourceVersion of the whole store (what a list reports). */
  get resourceVersion(): string {
    return String(this.revision);
  }

  private key(t: ResourceType, namespace: string | undefined, name: string): string {
    return `${t.plural}.${t.group}/${t.namespaced ? (namespace ?? '') : ''}/${name}`;
  }

  private typeAndKey(apiVersion: string, kind: string, namespace: string | undefined, name: string) {
    const t = typeByKind(apiVersion, kind);
    return { t, key: this.key(t, namespace, name) };
  }

  /**
   * Creates or replaces an object. On create: uid, creationTimestamp and generation 1 (unless given).
   * On replace: uid and creationTimestamp kept; generation +1 when spec changed (unless given).
   * Every write bumps metadata.resourceVersion.
   */
  put(input: KubeObjectInput): KubeObject {
    // Stored as a KubeObject once apiVersion and kind are checked, just below.
    const obj = structuredClone(input) as KubeObject;
    if (!obj.apiVersion || !obj.kind || !obj.metadata.name) {
      throw new Error('fake-kube: put() needs apiVersion, kind and metadata.name');
    }
    const t = typeByKind(obj.apiVersion, obj.kind);
    if (t.namespaced && !obj.metadata.namespace) throw new Error(`fake-kube: ${obj.kind} needs metadata.namespace`);
    if (!t.namespaced) delete obj.metadata.namespace;
    const key = this.key(t, obj.metadata.namespace, obj.metadata.name);
    const prev = this.objects.get(key);
    const meta = obj.metadata as ObjectMeta & { creationTimestamp?: string };
    if (prev) {
      const prevMeta = prev.metadata as ObjectMeta & { creationTimestamp?: string };
      meta.uid = prevMeta.uid;
      meta.creationTimestamp = prevMeta.creationTimestamp;
      if (t.generation && meta.generation === undefined) {
        const changed = canonical(prev.spec) !== canonical(obj.spec);
        meta.generation = (prevMeta.generation ?? 1) + (changed ? 1 : 0);
      }
    } else {
      meta.uid ??= randomUUID();
      meta.creationTimestamp ??= kubeTime();
      if (t.generation) meta.generation ??= 1;
    }
    if (!t.generation) delete meta.generation;
    meta.resourceVersion = String(++this.revision);
    this.objects.set(key, obj);
    this.emit(prev ? 'MODIFIED' : 'ADDED', obj);
    return structuredClone(obj);
  }

  /** Merge-patches .status only (like the /status subresource): no generation bump. */
  patchStatus(apiVersion: string, kind: string, namespace: string | undefined, name: string, status: unknown): KubeObject {
    const { key } = this.typeAndKey(apiVersion, kind, namespace, name);
    const obj = this.objects.get(key);
    if (!obj) throw new Error(`fake-kube: patchStatus: ${kind} ${namespace ?? ''}/${name} does not exist`);
    obj.status = mergePatch(obj.status, status) as Record<string, unknown>;
    obj.metadata.resourceVersion = String(++this.revision);
    this.emit('MODIFIED', obj);
    return structuredClone(obj);
  }

  /** Removes an object; true when it existed. */
  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string): boolean {
    const { key } = this.typeAndKey(apiVersion, kind, namespace, name);
    const obj = this.objects.get(key);
    if (!obj) return false;
    this.objects.delete(key);
    // The server reports a deletion with the object's last state at the deletion's revision.
    obj.metadata.resourceVersion = String(++this.revision);
    this.emit('DELETED', obj);
    return true;
  }

  private emit(type: StoreEvent['type'], obj: KubeObject): void {
    const event: StoreEvent = { rv: this.revision, type, object: structuredClone(obj) };
    this.history.push(event);
    if (this.history.length > HISTORY_LIMIT) {
      const dropped = this.history.splice(0, this.history.length - HISTORY_LIMIT);
      this.oldestResumable = dropped.at(-1)!.rv;
    }
    for (const l of this.listeners) l(event);
  }

  /** Hears every change from now on; returns the unsubscribe function. */
  subscribe(listener: (e: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The changes after revision `rv` (copies), or 'expired' when they are no longer kept (the server's
   * 410 Gone "too old resource version").
   */
  changesSince(rv: number): StoreEvent[] | 'expired' {
    if (rv < this.oldestResumable) return 'expired';
    return this.history.filter((e) => e.rv > rv).map((e) => ({ ...e, object: structuredClone(e.object) }));
  }

  /** Forgets the change history: a watch resuming from any revision before now gets 410 Gone (etcd compaction). */
  compact(): void {
    this.history = [];
    this.oldestResumable = this.revision;
  }

  /** A copy of the stored object, or undefined. */
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const { key } = this.typeAndKey(apiVersion, kind, namespace, name);
    const obj = this.objects.get(key);
    return obj && structuredClone(obj);
  }

  /** The stored object of a type by name (for the HTTP side). */
  find(t: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const obj = this.objects.get(this.key(t, namespace, name));
    return obj && structuredClone(obj);
  }

  /** Objects of a type, in one namespace or all, ordered like etcd keys (namespace, then name). */
  list(t: ResourceType, namespace?: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const obj of this.objects.values()) {
      if (obj.apiVersion !== apiVersionOf(t) || obj.kind !== t.kind) continue;
      if (namespace !== undefined && obj.metadata.namespace !== namespace) continue;
      out.push(structuredClone(obj));
    }
    const sortKey = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    return out.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
  }

  clear(): void {
    this.objects.clear();
    this.compact();
  }
}
