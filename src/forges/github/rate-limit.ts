/**
 * GitHub's rate-limit answers, read the way GitHub documents them ("Rate limits for the REST API"):
 * wait `retry-after` seconds when it is sent; else, with `x-ratelimit-remaining: 0`, wait until
 * `x-ratelimit-reset`; else wait at least a minute, longer each time the secondary limit repeats.
 * Pure: headers in, a pause out.
 */

import type { Budget, BudgetReader, HeaderBag, RateLimitHit } from '../forge-health.js';

/** Added after `x-ratelimit-reset`, so the first request comes after the reset, not at it. */
export const RESET_MARGIN_MS = 1_000;
/** Wait after a secondary limit without `retry-after` (GitHub: "at least one minute"). */
export const SECONDARY_FALLBACK_MS = 60_000;
/** Longest wait for repeated secondary limits without `retry-after`. */
export const SECONDARY_FALLBACK_CAP_MS = 15 * 60_000;
/** Wait when the budget is spent but the reset time is missing or already past. */
export const PRIMARY_FALLBACK_MS = 60_000;

const num = (v: string | number | undefined): number | undefined => {
  if (v === undefined || String(v).trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** `retry-after` in milliseconds: delta seconds or an HTTP date. */
function retryAfterMs(v: string | number | undefined, now: number): number | undefined {
  const seconds = num(v);
  if (seconds !== undefined) return Math.max(0, seconds * 1000);
  if (typeof v !== 'string') return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The budget an answer reports, when it has the headers. */
export function readBudget(headers: HeaderBag): Budget | undefined {
  const limit = num(headers['x-ratelimit-limit']);
  const remaining = num(headers['x-ratelimit-remaining']);
  const reset = num(headers['x-ratelimit-reset']);
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return {
    resource: String(headers['x-ratelimit-resource'] ?? 'core'),
    limit,
    remaining,
    used: num(headers['x-ratelimit-used']) ?? null,
    resetAt: reset * 1000,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Until when the spent budget blocks requests: the reset (plus margin), or a minute when unknown. */
function untilReset(headers: HeaderBag, now: number): number {
  const reset = num(headers['x-ratelimit-reset']);
  const at = reset === undefined ? undefined : reset * 1000 + RESET_MARGIN_MS;
  return at !== undefined && at > now ? at : now + PRIMARY_FALLBACK_MS;
}

/**
 * The pause a refused request asks for, or undefined when the answer is not a rate limit (a 403
 * without these signs is a permission problem). `repeats`: secondary limits without `retry-after`
 * seen in a row before this one (the wait doubles each time).
 */
export function rateLimitOf(status: number, headers: HeaderBag, message: string, now: number, repeats = 0): RateLimitHit | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const secondary = /secondary rate limit|abuse detection/i.test(message);
  const spent = String(headers['x-ratelimit-remaining'] ?? '') === '0';
  const after = retryAfterMs(headers['retry-after'], now);
  if (!secondary && (spent || /API rate limit exceeded/i.test(message))) {
    const until = after !== undefined ? now + after : untilReset(headers, now);
    const resource = String(headers['x-ratelimit-resource'] ?? 'core');
    return { kind: 'primary', until, reason: `primary rate limit: the ${resource} request budget is spent until ${iso(until)}` };
  }
  if (!secondary && after === undefined && status === 403 && !/rate limit/i.test(message)) return undefined;
  let until: number;
  if (after !== undefined) until = now + after;
  else if (spent) until = untilReset(headers, now);
  else until = now + Math.min(SECONDARY_FALLBACK_CAP_MS, SECONDARY_FALLBACK_MS * 2 ** Math.min(repeats, 10));
  return { kind: 'secondary', until, reason: `secondary rate limit: GitHub asked to wait until ${iso(until)}` };
}

/**
 * A successful answer that spent the last request of the budget: pause before the next one is
 * refused. Only the `core` resource gates the deployment endpoints.
 */
export function budgetSpent(headers: HeaderBag, now: number): RateLimitHit | undefined {
  const b = readBudget(headers);
  if (b === undefined || b.remaining > 0 || b.resource !== 'core' || b.resetAt + RESET_MARGIN_MS <= now) return undefined;
  const until = b.resetAt + RESET_MARGIN_MS;
  return {
    kind: 'primary',
    until,
    reason: `primary rate limit: the last of ${b.limit} requests was used; the budget resets at ${iso(until)}`,
  };
}

/** GitHub's budgets, as its health tracker reads them from every answer. */
export const GITHUB_BUDGETS: BudgetReader = { read: readBudget, spent: budgetSpent };
