#!/usr/bin/env node
// First: refuses an unsupported Node.js before any native module loads (common/node-guard.ts).
import './common/node-guard.js';
import pino from 'pino';
import { logDestination } from './common/log-destination.js';
import { secretValue } from './common/rotating-secret.js';
import { buildApp } from './http/http-app.js';
import { openWebhookKeyring } from './http/webhook-keys.js';
import { buildImageFacts } from './images/image-facts-wiring.js';
import { buildDefaults } from './config/metadata-defaults.js';
import { buildForges, forgeUrls } from './forges/registry.js';
import { createKubeReader } from './kube/kube-client.js';
import { buildSpokes } from './runtime/spoke-wiring.js';
import { bridgeSection, clusterOutages, clusterViews } from './http/cluster-state.js';
import { withHealth } from './health/kube-health.js';
import { withRouteRefusals } from './kube/route-refusals.js';
import { describePatterns, trustOf } from './metadata/repository-trust.js';
import { startupNotices } from './config/startup-notices.js';
import { createMetrics } from './common/metrics.js';
import { installProxy } from './common/proxy.js';
import { createReadiness } from './health/readiness.js';
import { ForgeRouter } from './reconcile/forge-router.js';
import { commentsFeature } from './features/comments/comments-feature.js';
import { closeStorage, openStorage, storageHealthFor } from './store/open-storage.js';
import { SCHEMA } from './features/schema.js';
import { doraFeature } from './features/dora/dora-feature.js';
import { DeploymentStore } from './store/deployment-store.js';
import { ImageCache } from './store/image-cache.js';
import { QueueStore } from './store/queue-store.js';
import { RefusalStore } from './store/refusal-store.js';
import { SourceStore } from './store/source-store.js';
import { controllerVersion } from './common/version.js';
import { runCommand } from './cli/commands.js';
import type { Config } from './config/load-config.js';
import { buildReconcileLoops } from './runtime/reconcile-loops.js';
import { Shutdown, SHUTDOWN_GRACE_MS } from './runtime/shutdown.js';

/** The composition root: configuration → store → clients → app → listen; signals. */
async function main(config: Config): Promise<void> {
  const version = controllerVersion();
  // Not pino's default destination: with stdout's reader gone, that one blocks the exit (log-destination.ts).
  const log = pino({ level: config.logLevel, base: { service: 'github-deployment-bridge', version } }, logDestination(1));
  // HTTPS_PROXY/NO_PROXY for the forges and registries (Node's fetch ignores them by itself).
  await installProxy(process.env, log);
  const now = Date.now;
  // A dry run's cache is in memory (nothing it pretends to write leaks); a read-only or full volume stops the start here, in one line.
  const db = openStorage(config.dryRun ? ':memory:' : config.databasePath, SCHEMA);
  const queue = new QueueStore(db);
  const deployments = new DeploymentStore(db);
  const sources = new SourceStore(db);
  // BUILD_REVISION: the git commit an image was built from (the Dockerfile's REVISION build argument).
  const metrics = createMetrics({ version, commit: process.env.BUILD_REVISION ?? 'unknown' });
  // A failed write (disk full, read-only, I/O error): not ready, webhook events answered 503, until writes work again.
  const storage = storageHealthFor(db, config.dryRun ? ':memory:' : config.databasePath, { metrics, log, now });
  const kubeReader = createKubeReader(config.kubeconfig ? { kubeconfigPath: config.kubeconfig } : {});
  // Under the health tracker: an Ingress the bridge may not read is no sign of an unhealthy API.
  const kube = withHealth(withRouteRefusals(kubeReader, { now, log }), now);
  // Flux objects with spec.kubeConfig: their workloads are read in their (spoke) cluster, never in this one.
  const spokes = buildSpokes(config, { metrics, log, now });
  const clusters = () => clusterViews({ name: config.clusterName, health: kube.health() }, spokes.snapshot());
  const imageCache = new ImageCache(db, now);
  const images = buildImageFacts(config, imageCache, kube.reader, metrics, log);
  const refusals = new RefusalStore(db);
  const userAgent = `github-deployment-bridge/${version}`;
  const forges = buildForges(config, { db, deployments, refusals, metrics, log, now, userAgent, dryRun: config.dryRun });
  const router = ForgeRouter.over(forges.list, log);
  const defaults = buildDefaults(config, version, forges.hosts);
  // The features, in order (as the registry lists the forges): their hooks in each reconcile, their sections of
  // /state, /metrics and the status page, their start and stop.
  const featureDeps = { db, forges: forges.list, metrics, log, now, dryRun: config.dryRun, cluster: config.clusterName };
  const features = [commentsFeature, doraFeature].flatMap(
    (build) => build({ ...featureDeps, ...(config.dryRun ? {} : { databasePath: config.databasePath }) }, config) ?? [],
  );
  const loops = buildReconcileLoops({
    ...{ config, db, queue, deployments, sources, storage, kube: kube.reader, spokes, metrics, log, now },
    ...{ images, defaults, publisher: router, retirer: router, pausedUntil: () => forges.pausedUntil() },
    hooks: features.flatMap((f) => (f.hooks ? [f.hooks] : [])),
  });
  const worker = loops.worker;
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
  const shutdown = new Shutdown();
  const app = await buildApp({
    webhookKeys: openWebhookKeyring(config.webhookKeys, { now, log }),
    watchNamespaces: config.watchNamespaces,
    ...(config.stateToken ? { stateToken: secretValue(config.stateToken) } : {}),
    webhookRatePerMinute: config.webhookRatePerMinute,
    statusRatePerMinute: config.statusRatePerMinute,
    dryRun: config.dryRun,
    trust: trustOf(config),
    queue,
    deployments,
    sources,
    metrics,
    log,
    now,
    readiness,
    storage,
    kubeHealth: kube.health,
    onEnqueued: () => worker.notify(),
    isShuttingDown: () => shutdown.stopping,
    activeReconciles: () => worker.active,
    forges: forges.list,
    refusals,
    sections: [...features, bridgeSection({ clusters, storage: () => storage.snapshot(), registryCache: () => imageCache.counts() })],
    identity: { version, cluster: config.clusterName },
  });
  const address = await app.listen({ port: config.port, host: config.host });
  for (const f of forges.list) f.health.onResume(() => worker.notify());
  // The first credential checks before any forge work (bounded); events are already accepted meanwhile.
  await forges.start();
  loops.start();
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

  shutdown.onSignals(log, async () => {
    await loops.stopPasses();
    for (const f of features) await f.stop?.();
    loops.stopWatches();
    spokes.stop();
    forges.stop();
    await worker.stop(SHUTDOWN_GRACE_MS);
    await app.close();
    closeStorage(db);
  });
}

runCommand(process.argv.slice(2), process.env, main);
