import type { RefusalStore } from '../store/refusal-store.js';
import type { Metrics } from '../common/metrics.js';
import type { BudgetGate } from './budget-gate.js';
import type { ForgeHealth, ForgePause } from './forge-health.js';
import { budgetText } from './write-budget.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const pauseState = (p: ForgePause) => ({ kind: p.kind, reason: p.reason, since: iso(p.since), until: iso(p.until) });

/** What every forge's section of /state shows: credentials, pause (and the paused credential scopes) and its refusals. */
export function forgeHealthState(health: ForgeHealth, refusals: RefusalStore, forge: string, now: number): Record<string, unknown> {
  const h = health.snapshot();
  return {
    credentials: { ...h.credentials, checkedAt: iso(h.credentials.checkedAt), nextCheckAt: iso(h.credentials.nextCheckAt) },
    paused: h.pause === null ? null : pauseState(h.pause),
    // Rate limits pause one credential scope each (the token; an App's JWT, each installation).
    pausedScopes: h.pauses.map((p) => ({ scope: p.scope, ...pauseState(p) })),
    refusals: refusals.list(200, forge).map((r) => ({ ...r, since: iso(r.since), retryAt: iso(r.retryAt), waiting: r.retryAt > now })),
  };
}

/** The budgets a forge reported (GitHub's), for its /state section. */
export function budgetState(health: ForgeHealth): Array<Record<string, unknown>> {
  return health.snapshot().budgets.map((b) => ({ ...b, resetAt: iso(b.resetAt), observedAt: iso(b.observedAt) }));
}

/** The write budget and its backlog per credential scope, for a forge's /state section (null without a budget). */
export function backlogState(gate: BudgetGate | undefined, now: number): Record<string, unknown> | null {
  if (gate === undefined) return null;
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
export function scrapeBacklog(metrics: Metrics, forge: string, gate: BudgetGate | undefined, now: number): void {
  if (gate === undefined) return;
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
