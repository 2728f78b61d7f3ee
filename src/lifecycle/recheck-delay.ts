import type { Rollout } from './rollout.js';

/** First re-check of a source whose workloads are still rolling out: soon, most rollouts are quick. */
export const RECHECK_INITIAL_MS = 5_000;
/** Each further re-check waits this many times longer than the one before. */
export const RECHECK_FACTOR = 2;
/** The longest wait between re-checks: a slow rollout is still seen within a minute of finishing. */
export const RECHECK_MAX_MS = 60_000;

/**
 * How long to wait before re-checking a source while any of its workloads is still rolling out
 * (Flux sends no event when a rollout ends). `attempt` counts re-checks already made for this
 * rollout, from 0: 5 s, 10 s, 20 s, 40 s, then 60 s for every later attempt. Deterministic: there
 * is one re-check per source, so there is no herd to spread.
 */
export function recheckDelay(attempt: number): number {
  const n = Number.isNaN(attempt) ? 0 : Math.max(0, Math.floor(attempt));
  // Past ~log2(60/5) the cap applies; bounding the exponent keeps the arithmetic finite.
  return Math.min(RECHECK_MAX_MS, RECHECK_INITIAL_MS * RECHECK_FACTOR ** Math.min(n, 32));
}

/**
 * The re-check of a source whose rolling workloads are all under a held watch: the watch reports the end
 * at once, this is only the safety net behind it.
 */
export const WATCHED_RECHECK_MS = 5 * 60_000;

/**
 * A source needs a re-check of its own while any of its reported workloads is still progressing (a
 * paused Deployment is not: nothing moves until it is resumed, which the watch sees).
 */
export function needsRecheck(rollouts: Iterable<Rollout>): boolean {
  for (const r of rollouts) if (r.state === 'progressing') return true;
  return false;
}
