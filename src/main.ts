#!/usr/bin/env node
// First: refuses an unsupported Node.js before any native module loads (common/node-guard.ts).
import './common/node-guard.js';
import pino from 'pino';
import { logDestination } from './common/log-destination.js';
import { secretValue } from './common/rotating-secret.js';
import { buildApp } from './http/http-app.js';
import { openWebhookKeyring } from './http/webhook-keys.js';
import { EXPLAIN_EXIT, explainMain } from './cli/explain.js';
import { doraMain } from './cli/dora.js';
import { parseCommand, usage } from './cli/usage.js';
import { buildImageFacts } from './images/image-facts-wiring.js';
import { buildDefaults } from './config/metadata-defaults.js';
import { ConfigError, loadConfig, type Config } from './config/load-config.js';
import { errorMessage } from './common/errors.js';
import { buildForges, forgeUrls } from './forges/registry.js';
import { createKubeReader } from './kube/kube-client.js';
import { buildSpokes } from './runtime/spoke-wiring.js';
import { clusterOutages, clusterViews } from './http/cluster-state.js';
import { withHealth } from './health/kube-health.js';
import { withRouteRefusals } from './kube/route-refusals.js';
import { createPassListings } from './kube/pass-listings.js';
import { buildRolloutTracking } from './runtime/rollout-watch-wiring.js';
import { describePatterns, trustOf } from './metadata/repository-trust.js';
import { startupNotices } from './config/startup-notices.js';
import { createMetrics } from './common/metrics.js';
import { installProxy } from './common/proxy.js';
import { createReadiness } from './health/readiness.js';
import { ForgeRouter } from './reconcile/forge-router.js';
import { commentsFeature } from './features/comments/comments-feature.js';
import type { Feature } from './features/feature.js';
import { reconcileSource } from './reconcile/reconcile-source.js';
import { AbsenceStore } from './store/absence-store.js';
import { RecheckSchedule } from './runtime/recheck-schedule.js';
import { Resync } from './runtime/resync.js';
import { createSourceRunner } from './runtime/source-runner.js';
import { closeStorage, openStorage, storageHealthFor } from './store/open-storage.js';
import { doraFeature } from './features/dora/dora-feature.js';
import { DeploymentStore } from './store/deployment-store.js';
import { ImageCache } from './store/image-cache.js';
import { QueueStore } from './store/queue-store.js';
import { RefusalStore } from './store/refusal-store.js';
import { SourceStore } from './store/source-store.js';
import { controllerVersion } from './common/version.js';
import { Worker } from './runtime/worker.js';
import { Pruning } from './runtime/pruning.js';
import { pruneStorage } from './store/retention.js';

/** How long shutdown waits for in-flight reconciles (and their forge writes) to finish. */
const SHUTDOWN_GRACE_MS = 10_000;
/** Time on top of the grace for closing the server and the database before exiting anyway. */
const SHUTDOWN_EXTRA_MS = 5_000;

/** The composition root: configuration → store → clients → app → listen; signals. */
async function main(config: Config): Promise<void> {
  const version = controllerVersion();
  // Not pino's default destination: with stdout's reader gone, that one blocks the exit (log-destination.ts).
  const log = pino({ level: config.logLevel, base: { service: 'github-deployment-bridge', version } }, logDestination(1));
  // HTTPS_PROXY/NO_PROXY for the forges and registries (Node's fetch ignores them by itself).
  await installProxy(process.env, log);
  const now = Date.now;
  // A dry run keeps its cache in memory, so nothing it pretended to write can leak into the real one.
  // A read-only or full volume stops the start here, with one line naming the file and the cause.
  const db = openStorage(config.dryRun ? ':memory:' : config.databasePath);
  const queue = new QueueStore(db);
  const deployments = new DeploymentStore(db);
  const sources = new SourceStore(db);
  // BUILD_REVISION: the git commit an image was built from (the Dockerfile's REVISION build argument).
  const metrics = createMetrics({ version, commit: process.env.BUILD_REVISION ?? 'unknown' });
  // A failed write (disk full, read-only, I/O error): not ready, webhook events answered 503, until writes work again.
  const storage = storageHealthFor(db, config.dryRun ? ':memory:' : config.databasePath, { metrics, log, now });
  const kubeOptions = config.kubeconfig ? { kubeconfigPath: config.kubeconfig } : {};
  const kubeReader = createKubeReader(kubeOptions);
  // Under the health tracker: an Ingress the bridge may not read is no sign of an unhealthy API.
  const kube = withHealth(withRouteRefusals(kubeReader, { now, log }), now);
  // The resync and the reconciles only it asked for read by list calls per namespace, not a GET per object.
  const listings = createPassListings(kube.reader, { now, passIntervalMs: config.resyncIntervalMs });
  // Flux objects with spec.kubeConfig: their workloads are read in their (spoke) cluster, never in this one.
  const spokes = buildSpokes(config, { metrics, log, now });
  const clusters = () => clusterViews({ name: config.clusterName, health: kube.health() }, spokes.snapshot());
  // Rollouts that Flux does not wait for end without an event: watches of what rolls out see it.
  const rollouts = buildRolloutTracking({ kube: kubeOptions, queue, notify: () => worker.notify(), log, now });
  const imageCache = new ImageCache(db, now);
  const images = buildImageFacts(config, imageCache, kube.reader, metrics, log);
  const refusals = new RefusalStore(db);
  const userAgent = `github-deployment-bridge/${version}`;
  const forges = buildForges(config, { db, deployments, refusals, metrics, log, now, userAgent, dryRun: config.dryRun });
  const router = ForgeRouter.over(forges.list, log);
  const defaults = buildDefaults(config, version, forges.hosts);
  // The features, in order: their hooks in each reconcile, their sections of /state, /metrics and the status page.
  const features: Feature[] = [
    // PULL_REQUEST_COMMENTS: one comment per pull request and cluster, through each forge's comments.
    ...(config.pullRequestComments
      ? [
          commentsFeature({
            db,
            ports: Object.fromEntries(forges.list.map((f) => [f.name, f.comments])),
            cluster: config.clusterName,
            windowMs: config.pullRequestCommentWindowMs,
            lookup: config.pullRequestLookup,
            dryRun: config.dryRun,
            metrics,
            log,
            now,
          }),
        ]
      : []),
    // DORA: commit times read once per counted commit, the environments' kinds, the figures (docs/dora.md).
    doraFeature({
      db,
      forges: forges.list,
      environments: config.doraEnvironments,
      metrics,
      log,
      now,
      ...(config.dryRun ? {} : { databasePath: config.databasePath }),
    }),
  ];
  const hooks = features.flatMap((f) => (f.hooks ? [f.hooks] : []));
  const cleanup = { deployments, absences: new AbsenceStore(db), publisher: router, hooks, graceMs: config.cleanupGraceMs, log };
  const reconcileDeps = { images, publisher: router, cleanup, hooks, sources, defaults, metrics, now, spokes };

  const worker = new Worker({
    queue,
    concurrency: config.reconcileConcurrency,
    log,
    now,
    pausedUntil: () => forges.pausedUntil(),
    storage,
    run: createSourceRunner({
      reconcile: (item, reader, slog) => reconcileSource({ ...reconcileDeps, kube: reader, log: slog, viaPass: item.viaResync }, item),
      readers: { fresh: kube.reader, pass: listings.reader },
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

  // Rows with no purpose left (gone sources, registry answers no one reads, old history) go by age.
  const pruning = new Pruning({
    prune: () => pruneStorage(db, now()),
    onPruned: (p) => {
      for (const [table, n] of Object.entries(p)) if (n > 0) metrics.storagePruned.inc({ table }, n);
    },
    storage,
    log,
  });

  const readiness = createReadiness({
    storage,
    db,
    kube: kube.health,
    forges: forges.list.map((f) => f.health),
    skips: () => sources.listSkips(),
    clusterOutages: () => clusterOutages(spokes.snapshot()),
    resyncIntervalMs: config.resyncIntervalMs,
    now,
  });

  let shuttingDown = false;
  const app = await buildApp({
    webhookKeys: openWebhookKeyring(config.webhookKeys, { now, log }),
    watchNamespaces: config.watchNamespaces,
    ...(config.stateToken ? { stateToken: secretValue(config.stateToken) } : {}),
    webhookRatePerMinute: config.webhookRatePerMinute,
    statusRatePerMinute: config.statusRatePerMinute,
    dryRun: config.dryRun,
    trust: trustOf(config),
    registryCache: () => imageCache.counts(),
    queue,
    deployments,
    sources,
    metrics,
    log,
    now,
    readiness,
    storage,
    storageState: () => storage.snapshot(),
    kubeHealth: kube.health,
    onEnqueued: () => worker.notify(),
    isShuttingDown: () => shuttingDown,
    activeReconciles: () => worker.active,
    forges: forges.list,
    refusals,
    features,
    clusters,
    identity: { version, cluster: config.clusterName },
  });
  const address = await app.listen({ port: config.port, host: config.host });
  for (const f of forges.list) f.health.onResume(() => worker.notify());
  // The first credential checks before any forge work (bounded); events are already accepted meanwhile.
  await forges.start();
  worker.start();
  resync.start();
  pruning.start();
  for (const f of features) f.start?.();
  log.info(
    {
      address,
      cluster: config.clusterName,
      resyncIntervalMs: config.resyncIntervalMs,
      database: config.databasePath,
      forges: Object.fromEntries(forges.list.map((f) => [f.name, f.summary])),
      allowedRepositories: describePatterns(config.allowedRepositories) || 'all',
      repositorySource: config.repositorySource,
    },
    'github-deployment-bridge started',
  );
  // Open by default, never silently: no allow-list, /state without a token, plain-http forges.
  for (const n of startupNotices({ ...config, forgeUrls: forgeUrls(config) })) log[n.level](n.fields, n.msg);

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    // Whatever hangs, the process ends: the queue is durable, the next start finishes the work.
    setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS + SHUTDOWN_EXTRA_MS).unref();
    log.info({ signal }, 'shutting down: finishing in-flight work');
    await resync.stop();
    pruning.stop();
    for (const f of features) await f.stop?.();
    rollouts.stop();
    spokes.stop();
    forges.stop();
    await worker.stop(SHUTDOWN_GRACE_MS);
    await app.close();
    closeStorage(db);
    log.info('stopped');
    // The last lines out (a broken pipe calls back at once; a stuck one is bounded by the timer above).
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    process.exit(0);
  };
  process.once('SIGTERM', (s) => void shutdown(s));
  process.once('SIGINT', (s) => void shutdown(s));
}

const command = parseCommand(process.argv.slice(2));
if (command.kind === 'help') {
  process.stdout.write(usage(controllerVersion()));
} else if (command.kind === 'version') {
  process.stdout.write(`${controllerVersion()}\n`);
} else if (command.kind === 'unknown') {
  process.stderr.write(`github-deployment-bridge: unknown command or argument '${command.arg}'\n\n${usage(controllerVersion())}`);
  process.exitCode = 2;
} else if (command.kind === 'dora') {
  process.exitCode = doraMain(command.args, process.env);
} else if (command.kind === 'explain') {
  explainMain(command.args, process.env).then(
    (code) => process.exit(code),
    (err: unknown) => {
      // Settings and usage errors are explain's own (exit 2); what is left could not be read.
      process.stderr.write(`github-deployment-bridge explain: ${errorMessage(err)}\n`);
      process.exit(EXPLAIN_EXIT.failed);
    },
  );
} else {
  let config: Config | undefined;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    process.stderr.write(`github-deployment-bridge: ${err instanceof ConfigError ? err.message : errorMessage(err)}\n`);
    process.exit(2);
  }
  main(config).catch((err: unknown) => {
    process.stderr.write(`github-deployment-bridge: failed to start: ${errorMessage(err)}\n`);
    process.exit(1);
  });
}
