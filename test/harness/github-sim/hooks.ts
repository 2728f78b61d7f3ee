/**
 * Request hooks: let a test act at an exact point of one request's life, when it arrives (before the
 * simulator applies it) or once it is applied but before the answer leaves. A test SIGKILLs the
 * client there to get a deterministic crash point ("the write never reached GitHub", "GitHub applied
 * it but the client never saw the answer") with no timing involved.
 */
import type { RecordedRequest } from '../github-sim.js';
import { matches, type FaultMatch } from './faults.js';

/**
 * 'drop' destroys the connection without an answer (and, for a `before` hook, without applying the request);
 * undefined lets the request go on.
 */
export type HookVerdict = 'drop' | undefined;

export interface RequestHook extends FaultMatch {
  /** `before`: on arrival, before faults and the endpoint run; `after`: once applied, before the answer is sent. */
  when: 'before' | 'after';
  /** Matching requests to let through first (default 0); `times` (default 1) counts the hits after them. */
  skip?: number;
  /** Called synchronously when the request matches; the simulator holds the request until it settles. */
  run(request: RecordedRequest): HookVerdict | Promise<HookVerdict>;
}

interface Armed {
  hook: RequestHook;
  skip: number;
  left: number;
}

/** Armed hooks in the order they were added. */
export class HookList {
  private armed: Armed[] = [];

  add(hook: RequestHook): void {
    this.armed.push({ hook, skip: hook.skip ?? 0, left: hook.times ?? 1 });
  }

  /**
   * Runs the hooks this request hits, in order; undefined (synchronously) when it hits none, so an
   * unhooked request is answered exactly as before.
   */
  run(when: RequestHook['when'], request: RecordedRequest, paths: string[]): Promise<HookVerdict> | undefined {
    const hits: RequestHook[] = [];
    for (const a of this.armed) {
      if (a.hook.when !== when || a.left <= 0 || !matches(a.hook, request.method, paths)) continue;
      if (a.skip > 0) {
        a.skip -= 1;
        continue;
      }
      a.left -= 1;
      hits.push(a.hook);
    }
    if (hits.length === 0) return undefined;
    return (async () => {
      let verdict: HookVerdict = undefined;
      for (const hook of hits) if ((await hook.run(request)) === 'drop') verdict = 'drop';
      return verdict;
    })();
  }

  clear(): void {
    this.armed = [];
  }
}
