/**
 * Builds a `Forge` from its driver, the same way for every forge: its publisher (over its dry-run port under
 * DRY_RUN, counting the statuses sent) behind the refusal guard as its lane, its credential checks, its /state
 * section (its own fields around credentials, pauses and refusals), its gauges, start and stop.
 */
import type { Forge, ForgeDeps } from './forge.js';
import { laneOf } from './forge.js';
import type { ForgeDriver } from './forge-driver.js';
import { forgeGauges, statusCounter } from './forge-metrics.js';
import { forgeHealthState } from './forge-state.js';
import { GuardedPublisher } from './refusal-guard.js';

/** The forge its settings configure, or undefined when they do not. */
export function assembleForge<S extends R, R>(driver: ForgeDriver<S, R>, settings: S, deps: ForgeDeps): Forge | undefined {
  const c = driver.connect(settings, deps);
  if (c === undefined) return undefined;
  const { name, title } = driver;
  const { refusals, deployments, log, now } = deps;
  const plain = c.publisher(deps.dryRun ? c.dryRun(c.port, log) : c.port, statusCounter(deps, name));
  const guarded = new GuardedPublisher({ publisher: plain, refusals, deployments, ...c.refusal, forge: title, log, now });
  const gauges = forgeGauges(deps.metrics, name, c.health);
  return {
    name,
    title,
    health: c.health,
    ...laneOf(guarded, plain, (r) => c.count(r)),
    ...(c.comments ? { comments: c.comments } : {}),
    ...(c.commits ? { commits: c.commits } : {}),
    ...(c.writeBudget ? { writeBudget: c.writeBudget } : {}),
    start: () => c.monitor.start(),
    stop: () => {
      c.monitor.stop();
      c.stop?.();
    },
    state: () => ({ ...c.stateHead, ...forgeHealthState(c.health, refusals, name, now()), ...c.own?.() }),
    describe: (row) => c.describe(row),
    scrape() {
      gauges();
      c.scrape?.();
    },
    summary: c.summary,
  };
}
