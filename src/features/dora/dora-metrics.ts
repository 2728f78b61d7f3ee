import type { Metrics } from '../../common/metrics.js';
import { countsForDora, doraFigures, type DoraFigures, type DoraOptions } from './dora.js';
import type { DoraStore } from './dora-store.js';

const DAY_MS = 86_400_000;

/** The window of the `/metrics` figures, and how soon an older commit makes a success a failed change. */
export const DORA_WINDOW_MS = 30 * DAY_MS;
export const DORA_ROLLBACK_WINDOW_MS = DAY_MS;

/** One forge's environment, summed over its repositories. */
export interface EnvironmentTotals {
  forge: string;
  environment: string;
  /** Successes per day, summed; undefined when no repository's rate is known. */
  perDay?: number;
  deployments: number;
  failedChanges: number;
  skewClamped: number;
  leadTimesMs: number[];
  restoreTimesMs: number[];
}

/** Sums the figures of every repository per (forge, environment): the bounded labels of the metrics. Pure. */
export function totalsByEnvironment(figures: readonly DoraFigures[]): EnvironmentTotals[] {
  const totals = new Map<string, EnvironmentTotals>();
  for (const f of figures) {
    const key = JSON.stringify([f.forge, f.environment]);
    const t = totals.get(key) ?? {
      forge: f.forge,
      environment: f.environment,
      deployments: 0,
      failedChanges: 0,
      skewClamped: 0,
      leadTimesMs: [],
      restoreTimesMs: [],
    };
    if (f.perDay !== undefined) t.perDay = (t.perDay ?? 0) + f.perDay;
    t.deployments += f.deployments;
    t.failedChanges += f.failedChanges;
    t.skewClamped += f.skewClamped;
    t.leadTimesMs.push(...f.leadTimesMs);
    t.restoreTimesMs.push(...f.restoreTimesMs);
    totals.set(key, t);
  }
  return [...totals.values()];
}

/** The figures of every repository and environment over the window ending `now` (what /metrics and /state show). */
export function doraWindow(store: Pick<DoraStore, 'facts' | 'since'>, now: number, include?: DoraOptions['include']): DoraFigures[] {
  const counted = (environment: string, kind: { production: boolean; transient: boolean }) =>
    countsForDora({ environment, ...kind }, include);
  return doraFigures(store.facts({ from: now - DORA_WINDOW_MS - DORA_ROLLBACK_WINDOW_MS, counted }), {
    now,
    windowMs: DORA_WINDOW_MS,
    rollbackWindowMs: DORA_ROLLBACK_WINDOW_MS,
    since: store.since(),
    ...(include ? { include } : {}),
  });
}

const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms / 1000));
const rounded = (n: number | undefined, digits: number) => (n === undefined ? null : Number(n.toFixed(digits)));

/** `/state`'s `dora`: the 30-day summary per repository and environment; a figure that cannot be known is null. Pure. */
export function doraSummary(figures: readonly DoraFigures[]) {
  return {
    windowDays: DORA_WINDOW_MS / DAY_MS,
    environments: figures.map((f) => ({
      forge: f.forge,
      repository: f.repository,
      environment: f.environment,
      deploymentsPerDay: rounded(f.perDay, 3),
      deploymentsPerWeek: rounded(f.perWeek, 2),
      leadTimeMedianSeconds: seconds(f.leadTimeMedianMs),
      changeFailureRate: rounded(f.changeFailureRate, 3),
      timeToRestoreMedianSeconds: seconds(f.restoreMedianMs),
      deployments: f.deployments,
      failedChanges: f.failedChanges,
      unrestored: f.unrestored,
    })),
  };
}

/** Sets the `gdb_dora_*` series from the figures of the window (`doraWindow`): the unknown ones are left out. */
export function setDoraMetrics(metrics: Metrics, figures: readonly DoraFigures[]): void {
  const m = metrics;
  for (const metric of [m.doraDeploymentsPerDay, m.doraChangeFailureRatio, m.doraLeadTimeClamped, m.doraLeadTime, m.doraTimeToRestore])
    metric.reset();
  for (const t of totalsByEnvironment(figures)) {
    const labels = { forge: t.forge, environment: t.environment };
    if (t.perDay !== undefined) m.doraDeploymentsPerDay.set(labels, t.perDay);
    if (t.deployments > 0) m.doraChangeFailureRatio.set(labels, t.failedChanges / t.deployments);
    if (t.leadTimesMs.length > 0) m.doraLeadTimeClamped.set(labels, t.skewClamped);
    for (const ms of t.leadTimesMs) m.doraLeadTime.observe(labels, ms / 1000);
    for (const ms of t.restoreTimesMs) m.doraTimeToRestore.observe(labels, ms / 1000);
  }
}
