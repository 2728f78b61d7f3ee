import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';
import type { DeploymentStore } from '../store/deployments.js';
import type { QueueStore } from '../store/queue.js';
import type { SourceStore } from '../store/sources.js';

/** Why the bridge is or is not ready to do its work. */
export interface Readiness {
  ready: boolean;
  reasons: string[];
}

export interface StatusDeps {
  queue: QueueStore;
  deployments: DeploymentStore;
  sources: SourceStore;
  metrics: Metrics;
  readiness: () => Readiness;
  activeReconciles: () => number;
}

/** `/healthz`, `/readyz`, `/state` and `/metrics`: what the bridge is doing, for people and probes. */
export async function statusRoutes(app: FastifyInstance, deps: StatusDeps): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    const r = deps.readiness();
    return reply.code(r.ready ? 200 : 503).send(r);
  });

  app.get('/state', async () => {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      deployments: deps.deployments.list().map((d) => ({
        owner: d.owner, repo: d.repo, environment: d.environment, sha: d.sha, deploymentName: d.deploymentName,
        deploymentId: d.deploymentId, state: d.state ?? 'provisional', description: d.description,
        workload: `${d.origin.workload.kind}/${d.origin.workload.namespace}/${d.origin.workload.name}`,
        container: d.origin.container, image: d.origin.image,
        source: `${d.origin.source.kind}/${d.origin.source.namespace}/${d.origin.source.name}`,
        updatedAt: iso(d.updatedAt),
      })),
      skipped: deps.sources.listSkips().map((s) => ({
        source: `${s.source.kind}/${s.source.namespace}/${s.source.name}`,
        workload: `${s.workload.kind}/${s.workload.namespace}/${s.workload.name}`,
        container: s.container || null, code: s.code, reason: s.reason, since: iso(s.since),
      })),
      sources: deps.sources.list().map((s) => ({ ...s, lastSeen: iso(s.lastSeen) })),
      queue: {
        ...deps.queue.counts(),
        running: deps.activeReconciles(),
        items: deps.queue.list().map((q) => ({ ...q, notBefore: iso(q.notBefore) })),
      },
      readiness: deps.readiness(),
    };
  });

  app.get('/metrics', async (_req, reply) => {
    const counts = deps.queue.counts();
    deps.metrics.queueDepth.set({ state: 'pending' }, counts.pending);
    deps.metrics.queueDepth.set({ state: 'active' }, counts.active);
    deps.metrics.deploymentsByState.reset();
    for (const { state, count } of deps.deployments.countsByState()) deps.metrics.deploymentsByState.set({ state }, count);
    deps.metrics.skipped.reset();
    for (const { code, count } of deps.sources.skipCounts()) deps.metrics.skipped.set({ reason: code }, count);
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
