import type { Metrics } from '../common/metrics.js';
import type { KubeHealth } from '../health/kube-health.js';
import type { QueueStore } from '../store/queue-store.js';
import type { SourceStore } from '../store/source-store.js';

/** What the scrape-time gauges are read from (a part of /metrics' own dependencies). */
export interface ScrapeSources {
  queue: Pick<QueueStore, 'oldestDue'>;
  sources: Pick<SourceStore, 'failing'>;
  metrics: Metrics;
  now: () => number;
  kubeHealth?: () => KubeHealth;
}

/** Milliseconds per second: the stores count milliseconds, Prometheus seconds. */
const MS_PER_S = 1000;

/**
 * Sets the gauges that are read from the stores and health trackers at scrape time (queue age, failing
 * sources, the last Kubernetes answer), so each scrape shows now. `startedAt` stands in
 * for the last Kubernetes answer before the first one: "no answer for 5 minutes" counts from the start.
 */
export function setScrapeGauges(deps: ScrapeSources, startedAt: number): void {
  const m = deps.metrics;
  const now = deps.now();
  const oldestDue = deps.queue.oldestDue(now);
  m.queueOldestAge.set(oldestDue === null ? 0 : (now - oldestDue) / MS_PER_S);
  const failing = deps.sources.failing();
  m.fluxObjectsFailing.set(failing.count);
  m.fluxObjectsFailingLongest.set(failing.since === null ? 0 : Math.max(0, now - failing.since) / MS_PER_S);
  if (deps.kubeHealth) m.kubeLastSuccess.set((deps.kubeHealth().lastOk ?? startedAt) / MS_PER_S);
}
