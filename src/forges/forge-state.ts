import type { RefusalStore } from '../store/refusal-store.js';
import type { ForgeHealth, ForgePause } from './forge-health.js';

/** A time as /state shows it. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

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
