import type { Metrics } from '../common/metrics.js';
import type { DeliveryState } from '../lifecycle/status-plan.js';
import type { ForgeDeps } from './forge.js';
import type { ForgeHealth } from './forge-health.js';

type Labels = Record<string, string>;

/**
 * One forge's health gauges (`gdb_forge_paused_until_timestamp_seconds`, `gdb_forge_rate_limit_remaining`,
 * `gdb_forge_credentials_ok`), set from its tracker just before a scrape under its `forge` label. The series a
 * scrape set and the next no longer has (a pause of a scope that ended, a budget no longer reported) are
 * removed, and only this forge's: the other forges share the metrics.
 */
export function forgeGauges(metrics: Metrics, forge: string, health: ForgeHealth): () => void {
  let shown: { paused: Labels[]; remaining: Labels[] } = { paused: [], remaining: [] };
  return () => {
    const h = health.snapshot();
    for (const l of shown.paused) metrics.forgePausedUntil.remove(l);
    for (const l of shown.remaining) metrics.forgeRateLimitRemaining.remove(l);
    shown = { paused: [], remaining: [] };
    const paused = (scope: string, until: number) => {
      const labels = { forge, scope };
      metrics.forgePausedUntil.set(labels, until);
      shown.paused.push(labels);
    };
    paused('all', h.pause === null ? 0 : Math.ceil(h.pause.until / 1000));
    for (const p of h.pauses) paused(p.scope ?? 'all', Math.ceil(p.until / 1000));
    for (const b of h.budgets) {
      const labels = { forge, scope: b.scope, resource: b.resource };
      metrics.forgeRateLimitRemaining.set(labels, b.remaining);
      shown.remaining.push(labels);
    }
    metrics.forgeCredentialsOk.set({ forge }, h.credentials.state === 'rejected' ? 0 : 1);
  };
}

/**
 * Counts each status a forge accepted in `gdb_statuses_sent_total{forge,state}`, in the neutral words of
 * the deployments table and /state (a GitHub `inactive`, a Forgejo "Deployment gone", a GitLab `canceled`
 * all count as `gone`). Each forge calls it at the one place its statuses are sent, so publish, cleanup and
 * supersession count alike. Under DRY_RUN nothing is sent, so nothing is counted.
 */
export function statusCounter(deps: Pick<ForgeDeps, 'metrics' | 'dryRun'>, forge: string): (state: DeliveryState) => void {
  return deps.dryRun ? () => {} : (state) => deps.metrics.statuses.inc({ forge, state });
}
