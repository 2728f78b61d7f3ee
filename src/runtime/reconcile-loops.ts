/**
 * What runs the reconciles, built once for the composition root: the worker over the queue (each source through
 * `reconcileSource`, the features' hooks at its steps), the resync's passes over per-namespace listings, the rollout
 * watches that wake the worker, and the pruning of rows with no purpose left. Started after the first forge checks.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../common/metrics.js';
import type { Config } from '../config/load-config.js';
import { FEATURE_PRUNE_STEPS } from '../features/retention.js';
import type { Forge } from '../forges/forge.js';
import type { KubeReader } from '../kube/kube-types.js';
import { createPassListings } from '../kube/pass-listings.js';
import { reconcileSource, type ReconcileDeps } from '../reconcile/reconcile-source.js';
import type { ReconcileHooks } from '../reconcile/reconcile-hooks.js';
import { AbsenceStore } from '../store/absence-store.js';
import type { Db } from '../store/database.js';
import type { DeploymentStore } from '../store/deployment-store.js';
import type { QueueStore } from '../store/queue-store.js';
import { pruneStorage } from '../store/retention.js';
import type { SourceStore } from '../store/source-store.js';
import type { StorageHealth } from '../store/storage-health.js';
import { Pruning } from './pruning.js';
import { RecheckSchedule } from './recheck-schedule.js';
import { Resync } from './resync.js';
import { buildRolloutTracking } from './rollout-watch-wiring.js';
import { createSourceRunner } from './source-runner.js';
import type { buildSpokes } from './spoke-wiring.js';
import { Worker } from './worker.js';

export interface ReconcileLoopsDeps extends Pick<ReconcileDeps, 'images' | 'defaults' | 'publisher'> {
  config: Pick<Config, 'kubeconfig' | 'reconcileConcurrency' | 'cleanupGraceMs' | 'resyncIntervalMs' | 'watchNamespaces'>;
  db: Db;
  queue: QueueStore;
  deployments: DeploymentStore;
  sources: SourceStore;
  storage: StorageHealth;
  /** The bridge's own cluster, read fresh (events, re-checks). */
  kube: KubeReader;
  spokes: ReturnType<typeof buildSpokes>;
  /** Each deployment's cleanup: the publisher itself, not the refusal guard (reconcile/sweep.ts). */
  retirer: Pick<Forge, 'retire'>;
  /** Until when every forge is paused (the worker waits). */
  pausedUntil: () => number | null;
  /** The features' hooks, in order. */
  hooks: readonly ReconcileHooks[];
  metrics: Metrics;
  log: Logger;
  now: () => number;
}

export function buildReconcileLoops(d: ReconcileLoopsDeps) {
  const { config, queue, deployments, sources, spokes, metrics, log, now } = d;
  // The resync and the reconciles only it asked for read by list calls per namespace, not a GET per object.
  const listings = createPassListings(d.kube, { now, passIntervalMs: config.resyncIntervalMs });
  // Rollouts that Flux does not wait for end without an event: watches of what rolls out see it.
  const kubeOptions = config.kubeconfig ? { kubeconfigPath: config.kubeconfig } : {};
  const rollouts = buildRolloutTracking({ kube: kubeOptions, queue, notify: () => worker.notify(), log, now });
  const hooks = d.hooks;
  const cleanup = { deployments, absences: new AbsenceStore(d.db), publisher: d.retirer, hooks, graceMs: config.cleanupGraceMs, log };
  const reconcileDeps = { images: d.images, publisher: d.publisher, cleanup, hooks, sources, defaults: d.defaults, metrics, now, spokes };

  const worker = new Worker({
    queue,
    concurrency: config.reconcileConcurrency,
    log,
    now,
    pausedUntil: d.pausedUntil,
    storage: d.storage,
    run: createSourceRunner({
      reconcile: (item, reader, slog) => reconcileSource({ ...reconcileDeps, kube: reader, log: slog, viaPass: item.viaResync }, item),
      readers: { fresh: d.kube, pass: listings.reader },
      rechecks: new RecheckSchedule(config.cleanupGraceMs),
      tracking: rollouts.tracking,
      sources,
      metrics,
      log,
      now,
    }),
  });
  const resync = new Resync({
    kube: listings.reader,
    queue,
    namespaces: config.watchNamespaces,
    intervalMs: config.resyncIntervalMs,
    log,
    now,
    onEnqueued: () => worker.notify(),
    onPassStart: () => {
      listings.begin();
      spokes.beginPass();
    },
    trackedSources: () => deployments.activeSources(),
  });

  // Rows with no purpose left (gone sources, registry answers no one reads, old history) go by age; the features'
  // tables too, turned on or not.
  const pruning = new Pruning({
    prune: () => pruneStorage(d.db, now(), FEATURE_PRUNE_STEPS),
    onPruned: (p) => {
      for (const [table, n] of Object.entries(p)) if (n > 0) metrics.storagePruned.inc({ table }, n);
    },
    storage: d.storage,
    log,
  });

  return {
    worker,
    start: () => {
      worker.start();
      resync.start();
      pruning.start();
    },
    /** The loops that start work, before the features stop. */
    stopPasses: async () => {
      await resync.stop();
      pruning.stop();
    },
    /** The watches, after the features stopped; the worker itself last (`worker.stop`, with its grace). */
    stopWatches: () => rollouts.stop(),
  };
}
