/**
 * Fault injection: make the next matching request(s) fail the way GitHub or the network does.
 */
import { loadFixture, seenBody, type DeploymentsFixture } from './spec.js';

/** Answer with this error without doing the work (5xx, 404, rate limits...). */
export interface ErrorFault {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON, or as text when a string (a proxy's page); the simulator's default when omitted. */
  body?: unknown;
}
/**
 * Do the work, then answer with this status: "the create succeeded but the response was lost".
 * A matching request that does no work (e.g. a 422) passes through without using it up.
 */
export interface AfterWorkFault {
  afterWork: number;
  headers?: Record<string, string>;
  body?: unknown;
}
/** Never answer (until the simulator closes): the client must time out. */
export interface HangFault {
  hang: true;
}
/** Destroy the socket without answering. */
export interface ResetFault {
  reset: true;
}

/**
 * Answer with a redirect to the same path and query on `to` (an origin, e.g. `http://127.0.0.1:4000`): the
 * simulator's own origin is a same-origin redirect (followed, the request then answered), another a redirect away.
 */
export interface RedirectFault {
  redirect: 301 | 302 | 303 | 307 | 308;
  to: string;
}

export type FaultKind = ErrorFault | AfterWorkFault | HangFault | ResetFault | RedirectFault;

export interface FaultMatch {
  /** HTTP method, any case; every method when omitted. */
  method?: string;
  /** Substring of (or RegExp tested on) the path, tried with and without the GHES prefix; any path when omitted. */
  path?: string | RegExp;
  /** How many matching requests it hits; default 1 (Infinity allowed). */
  times?: number;
}

/** A fault: where it applies, and what happens, given flat or under `kind`. */
export type Fault = FaultMatch & (FaultKind | { kind: FaultKind });

/** An injected fault and how many more requests it will hit. */
export interface ArmedFault {
  readonly match: FaultMatch;
  readonly kind: FaultKind;
  left: number;
}

/** Injected faults in injection order; the first armed fault that matches a request is used up. */
export class FaultQueue {
  private armed: ArmedFault[] = [];

  add(fault: Fault): void {
    const { method, path, times, ...rest } = fault;
    const kind = 'kind' in rest ? rest.kind : rest;
    this.armed.push({ match: { method, path }, kind, left: times ?? 1 });
  }

  /** Takes one use of the first fault matching this request, if any. */
  take(method: string, paths: string[]): ArmedFault | undefined {
    const hit = this.armed.find((a) => a.left > 0 && matches(a.match, method, paths));
    if (hit !== undefined) hit.left -= 1;
    return hit;
  }

  /** Returns an unused use (an afterWork fault on a request that did no work), keeping its place. */
  giveBack(fault: ArmedFault): void {
    fault.left += 1;
  }

  clear(): void {
    this.armed = [];
  }
}

/** Whether a request (its path with and without the prefix) matches; shared with request hooks. */
export function matches(m: FaultMatch, method: string, paths: string[]): boolean {
  if (m.method !== undefined && m.method.toUpperCase() !== method.toUpperCase()) return false;
  const p = m.path;
  if (p === undefined) return true;
  return paths.some((path) => (typeof p === 'string' ? path.includes(p) : new RegExp(p.source, p.flags.replace('g', '')).test(path)));
}

/** Builders for GitHub's rate-limit refusals, from the bodies in the shared fixture. */
export interface FaultBuilders {
  /** 403 with x-ratelimit-remaining 0 and x-ratelimit-reset = the given epoch seconds. */
  primaryRateLimit(resetEpochSeconds: number): ErrorFault;
  /** 403 (or 429) "You have exceeded a secondary rate limit" with retry-after. */
  secondaryRateLimit(retryAfterSeconds: number, status?: 403 | 429): ErrorFault;
}

export function faultBuilders(fixture: DeploymentsFixture): FaultBuilders {
  return {
    primaryRateLimit(reset) {
      const seen = seenBody(fixture, 'primaryRateLimit.403');
      return { status: seen.status, headers: { ...seen.headers, 'x-ratelimit-reset': String(reset) }, body: seen.body };
    },
    secondaryRateLimit(retryAfter, status = 403) {
      const seen = seenBody(fixture, 'secondaryRateLimit.403');
      return { status, headers: { ...seen.headers, 'retry-after': String(retryAfter) }, body: seen.body };
    },
  };
}

/** The same builders over the default fixture (read at each call). */
export const faults: FaultBuilders = {
  primaryRateLimit: (reset) => faultBuilders(loadFixture()).primaryRateLimit(reset),
  secondaryRateLimit: (retryAfter, status) => faultBuilders(loadFixture()).secondaryRateLimit(retryAfter, status),
};
