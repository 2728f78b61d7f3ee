/** GitHub's budgets in its /state section and gauges: the rate limits it reported, and the write budget's backlog. */
import type { Metrics } from '../../common/metrics.js';
import type { WriteBudgetView } from '../forge.js';
import type { ForgeHealth } from '../forge-health.js';
import { iso } from '../forge-state.js';
import type { BudgetGate } from './budget-gate.js';
import { budgetText } from './write-budget.js';

/** The budgets a forge reported (GitHub's), for its /state section. */
export function budgetState(health: ForgeHealth): Array<Record<string, unknown>> {
  return health.snapshot().budgets.map((b) => ({ ...b, resetAt: iso(b.resetAt), observedAt: iso(b.observedAt) }));
}

/** The write budget and its backlog per credential scope, for GitHub's /state section and the status page. */
export function backlogState(gate: BudgetGate, now: number): WriteBudgetView {
  return {
    budget: budgetText(gate.budget),
    scopes: gate.backlog().map((b) => ({
      scope: b.scope,
      waiting: b.waiting,
      oldestWaitingSince: iso(b.oldestSince),
      oldestWaitingSeconds: b.oldestSince === null ? 0 : Math.round((now - b.oldestSince) / 1000),
      budgetFreesAt: iso(Math.max(now, b.freesAt)),
      drainsInSeconds: Math.round((b.drainsAt - now) / 1000),
    })),
  };
}

/** Sets the backlog gauges of one forge just before a scrape. */
export function scrapeBacklog(metrics: Metrics, forge: string, gate: BudgetGate, now: number): void {
  for (const g of [metrics.forgeWriteBacklog, metrics.forgeWriteBacklogOldest, metrics.forgeWriteBacklogDrain, metrics.forgeBudgetFreesAt])
    g.reset();
  for (const b of gate.backlog()) {
    const labels = { forge, scope: b.scope };
    metrics.forgeWriteBacklog.set(labels, b.waiting);
    metrics.forgeWriteBacklogOldest.set(labels, b.oldestSince === null ? 0 : (now - b.oldestSince) / 1000);
    metrics.forgeWriteBacklogDrain.set(labels, Math.max(0, b.drainsAt - now) / 1000);
    metrics.forgeBudgetFreesAt.set(labels, Math.ceil(Math.max(now, b.freesAt) / 1000));
  }
}
