#!/usr/bin/env node
import pino from 'pino';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { errorMessage } from './errors.js';
import { createGitHubSide } from './github/client.js';
import type { Readiness } from './http/status-routes.js';
import { createKubeReader } from './kube/client.js';
import { withHealth } from './kube/health.js';
import { authFileKeyring } from './images/auth-file.js';
import { createImageFacts, createWarnOnce } from './images/image-facts.js';
import { describePatterns } from './metadata/trust.js';
import { createMetrics } from './metrics.js';
import { createCachedLabelSource } from './oci/cached-label-source.js';
import { createRegistryClient } from './oci/registry-client.js';
import { Publisher } from './publisher.js';
import { reconcileSource } from './reconcile.js';
import { GuardedPublisher } from './refusals.js';
import { Resync } from './resync.js';
import { openDatabase } from './store/db.js';
import { DeploymentStore } from './store/deployments.js';
import { InstallationStore } from './store/installations.js';
import { ImageCache } from './store/image-cache.js';
import { QueueStore } from './store/queue.js';
import { RefusalStore } from './store/refusals.js';
import { SourceStore } from './store/sources.js';
import { controllerVersion } from './version.js';
import { Worker } from './worker.js';

/** How long shutdown waits for in-flight reconciles (and their GitHub writes) to finish. */
const SHUTDOWN_GRACE_MS = 10_000;
/** Time on top of the grace for closing the server and the database before exiting anyway. */
const SHUTDOWN_EXTRA_MS = 5_000;

/** The composition root: configuration → store → clients → app → listen; signals. */
async function main(config: Config): Promise<void> {
  const version = controllerVersion();
  const log = pino({ level: config.logLevel, base: { service: 'github-deployment-bridge', version } });
  const now = Date.now;
  const db = openDatabase(config.databasePath);
  const queue = new QueueStore(db);
  const deployments = new DeploymentStore(db);
  const sources = new SourceStore(db);
  const metrics = createMetrics();
  const kube = withHealth(createKubeReader(config.kubeconfig ? { kubeconfigPath: config.kubeconfig } : {}), now);
  const registry = createRegistryClient({
    insecureHosts: config.registryInsecureHosts, platform: config.registryPlatform,
    onResponse: (method, status) => metrics.registryHttp.inc({ method, status: String(status) }),
  });
  const labels = createCachedLabelSource(registry, new ImageCache(db));
  const warnOnce = createWarnOnce(log.child({ component: 'image-facts' }));
  const authFile = config.registryAuthFile ? authFileKeyring(config.registryAuthFile, warnOnce) : () => [];
  const images = createImageFacts({ kube: kube.reader, labels, authFile, warnOnce });
  const github = createGitHubSide({
    auth: config.githubAuth, baseUrl: config.githubApiUrl, userAgent: `github-deployment-bridge/${version}`,
    metrics, log: log.child({ component: 'github' }), now, installations: new InstallationStore(db),
  });
  const refusals = new RefusalStore(db);
  const publisher = new GuardedPublisher({
    publisher: new Publisher({ github: github.port, deployments, log, now }), refusals, deployments, auth: config.githubAuth.kind, log, now,
  });
  const defaults = {
    cluster: config.clusterName,
    ...(config.environment ? { environment: config.environment } : {}),
    ...(config.environmentUrl ? { environmentUrl: config.environmentUrl } : {}),
    ...(config.logUrlTemplate ? { logUrlTemplate: config.logUrlTemplate } : {}),
    description: config.description,
    githubHost: config.githubHost,
    controllerVersion: version,
    repositorySource: config.repositorySource,
    allowedRepositories: config.allowedRepositories,
  };

  const worker = new Worker({
    queue, concurrency: config.reconcileConcurrency, log, now,
    pausedUntil: () => github.health.pausedUntil(),
    run: async (item) => {
      const slog = log.child({ source: `${item.kind}/${item.namespace}/${item.name}` });
      const done = metrics.reconcileSeconds.startTimer();
      try {
        const out = await reconcileSource({ kube: kube.reader, images, publisher, sources, defaults, log: slog, metrics, now }, item);
        metrics.reconciles.inc({ outcome: 'ok' });
        if (out.statusesSent > 0 && item.firstEventAt !== null) metrics.eventToStatus.observe((now() - item.firstEventAt) / 1000);
      } catch (err) {
        metrics.reconciles.inc({ outcome: 'error' });
        sources.recordError(item, errorMessage(err), now());
        throw err;
      } finally {
        done();
      }
    },
  });
  const resync = new Resync({
    kube: kube.reader, queue, namespaces: config.watchNamespaces, intervalMs: config.resyncIntervalMs, log, now,
    onEnqueued: () => worker.notify(),
  });

  // The API answered within two resync intervals (at least a minute): readiness tolerates one failed pass.
  const kubeFreshMs = Math.max(60_000, 2 * config.resyncIntervalMs);
  const readiness = (): Readiness => {
    const reasons: string[] = [];
    try {
      db.prepare('SELECT 1').get();
    } catch (err) {
      reasons.push(`database: ${errorMessage(err)}`);
    }
    const k = kube.health();
    if (k.lastOk === null || now() - k.lastOk > kubeFreshMs) {
      reasons.push(`Kubernetes API has not answered${k.lastOk === null ? ' yet' : ' recently'}${k.lastError ? `: ${k.lastError}` : ''}`);
    }
    const gh = github.health.readinessProblem();
    if (gh !== undefined) reasons.push(gh);
    return { ready: reasons.length === 0, reasons };
  };

  let shuttingDown = false;
  const app = await buildApp({
    webhookKey: config.webhookKey, queue, deployments, sources, metrics, log, now, readiness,
    onEnqueued: () => worker.notify(),
    isShuttingDown: () => shuttingDown,
    activeReconciles: () => worker.active,
    github: { health: github.health, refusals, now },
  });
  const address = await app.listen({ port: config.port, host: config.host });
  github.health.onResume(() => worker.notify());
  worker.start();
  resync.start();
  void github.monitor.start();
  log.info({
    address, cluster: config.clusterName, resyncIntervalMs: config.resyncIntervalMs, database: config.databasePath,
    github: { api: config.githubApiUrl, auth: config.githubAuth.kind, allowedRepositories: describePatterns(config.allowedRepositories) || 'all', repositorySource: config.repositorySource },
  }, 'github-deployment-bridge started');

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
    github.monitor.stop();
    await worker.stop(SHUTDOWN_GRACE_MS);
    await app.close();
    db.close();
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', (s) => void shutdown(s));
  process.once('SIGINT', (s) => void shutdown(s));
}

let config: Config;
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
