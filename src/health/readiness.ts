/**
 * /readyz: the bridge is ready while it can take Flux's events durably (its database takes writes) and
 * every configured forge accepts its credentials (a misconfiguration, not an outage).
 * An outage of a dependency (Kubernetes API, a forge, a registry) only makes it `degraded`: the webhook
 * keeps queueing events, nothing is lost by taking them, so the Service must keep routing them here;
 * alerts on the metrics tell the operator (docs/http-endpoints.md). See degraded.ts.
 */
import { errorMessage } from '../common/errors.js';
import type { ForgeHealth } from '../forges/forge-health.js';
import type { Db } from '../store/database.js';
import type { Skip } from '../store/source-store.js';
import { degradedDependencies } from './degraded.js';
import type { KubeHealth } from './kube-health.js';
import type { StorageHealth } from '../store/storage-health.js';

/** Why the bridge is or is not ready to do its work. */
export interface Readiness {
  ready: boolean;
  reasons: string[];
  /** Dependencies failing now that do not make it unready (the queue retries), each with its last error. */
  degraded?: string[];
}

/** The least time the Kubernetes API may stay silent before /readyz says so (one failed resync pass is tolerated). */
const KUBE_SILENCE_MIN_MS = 60_000;
/** Resync intervals the Kubernetes API may stay silent, when longer than the minimum. */
const KUBE_SILENCE_RESYNCS = 2;

/** How long the Kubernetes API may stay silent before /readyz names it as silent: two resync intervals, at least a minute. */
export function kubeSilenceMs(resyncIntervalMs: number): number {
  return Math.max(KUBE_SILENCE_MIN_MS, KUBE_SILENCE_RESYNCS * resyncIntervalMs);
}

/** What readiness is decided from, each read once. */
export interface ReadinessFacts {
  now: number;
  /** Why the database cannot be written (StorageHealth.check()), or undefined. */
  storage: string | undefined;
  /** Why a write lock could not be taken, or undefined. */
  writeLock: string | undefined;
  kube: KubeHealth;
  /** See kubeSilenceMs. */
  kubeSilenceMs: number;
  /** Why a forge's work cannot go on (ForgeHealth.readinessProblem(): rejected credentials), one per failing forge. */
  forgeProblems: readonly string[];
  /** Why a forge's work is failing now (ForgeHealth.outage()): degraded, not unready. */
  forgeOutages: readonly string[];
  skips: ReadonlyArray<Pick<Skip, 'code' | 'reason'>>;
  /** Remote clusters that do not answer, one line each: degraded, never unready. */
  clusterOutages?: readonly string[];
}

/** Ready or not, every reason why not, and what is degraded. Pure. */
export function readinessOf(f: ReadinessFacts): Readiness {
  const reasons: string[] = [];
  if (f.storage !== undefined) reasons.push(f.storage);
  if (f.writeLock !== undefined) reasons.push(`database: ${f.writeLock}`);
  const k = f.kube;
  const kubeStale = k.lastOk === null || f.now - k.lastOk > f.kubeSilenceMs;
  reasons.push(...f.forgeProblems);
  const degraded = degradedDependencies({ kube: kubeStale ? null : k.lastError, forges: f.forgeOutages, skips: f.skips });
  // Silent past the window: said first, with its last error (degraded, not unready: events still queue).
  if (kubeStale)
    degraded.unshift(`Kubernetes API has not answered${k.lastOk === null ? ' yet' : ' recently'}${k.lastError ? `: ${k.lastError}` : ''}`);
  degraded.push(...(f.clusterOutages ?? []));
  return { ready: reasons.length === 0, reasons, degraded };
}

/** Where readiness reads its facts. */
export interface ReadinessSources {
  storage: Pick<StorageHealth, 'check'>;
  db: Pick<Db, 'exec'>;
  kube: () => KubeHealth;
  /** The configured forges' health trackers. */
  forges: ReadonlyArray<Pick<ForgeHealth, 'readinessProblem' | 'outage'>>;
  skips: () => ReadonlyArray<Pick<Skip, 'code' | 'reason'>>;
  /** Remote clusters that do not answer (http/cluster-state.ts clusterOutages). */
  clusterOutages?: () => readonly string[];
  resyncIntervalMs: number;
  now: () => number;
}

/** The readiness check /readyz and /state run: reads the facts (the storage probe first), then decides. */
export function createReadiness(s: ReadinessSources): () => Readiness {
  const silenceMs = kubeSilenceMs(s.resyncIntervalMs);
  return () => {
    const storage = s.storage.check();
    let writeLock: string | undefined;
    try {
      // Writable, not just open: a write lock taken and released (fails on a read-only or locked database).
      s.db.exec('BEGIN IMMEDIATE; ROLLBACK');
    } catch (err) {
      writeLock = errorMessage(err);
    }
    return readinessOf({
      now: s.now(),
      storage,
      writeLock,
      kube: s.kube(),
      kubeSilenceMs: silenceMs,
      forgeProblems: s.forges.flatMap((f) => f.readinessProblem() ?? []),
      forgeOutages: s.forges.flatMap((f) => f.outage() ?? []),
      skips: s.skips(),
      ...(s.clusterOutages ? { clusterOutages: s.clusterOutages() } : {}),
    });
  };
}
