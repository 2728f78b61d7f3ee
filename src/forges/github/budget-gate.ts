/**
 * The write budget per credential scope, as the request path asks it (forge-neutral; the decisions are the
 * pure functions of write-budget.ts). A write either goes now (or after a wait of at most `holdMs`, slept
 * here), or is refused without being sent (BudgetDeferred, retried at its turn): its reconcile gives up its
 * worker and, when it comes back, builds the write from the desired state of that moment.
 */
import { WaitsForTurn } from '../../common/errors.js';
import { sleep } from '../../common/timers.js';
import type { Budget } from '../forge-health.js';
import {
  DEFAULT_TURN_RULES,
  decideTurn,
  goesBefore,
  nextSlots,
  primaryAllows,
  rankOf,
  stale,
  type BudgetWindow,
  type Turn,
  type TurnRules,
  type Waiting,
  withMargin,
} from './write-budget.js';

/** Thrown instead of sending a request whose turn has not come: it never left; retry at `retryAt`. */
export class BudgetDeferred extends WaitsForTurn {
  override readonly name = 'BudgetDeferred';
}

/** A scope's backlog as /state and the metrics show it. */
export interface ScopeBacklog {
  scope: string;
  /** Writes waiting for their turn (not late). */
  waiting: number;
  /** When the longest-waiting write first asked (epoch ms), or null. */
  oldestSince: number | null;
  /** When the next write may go (now when the budget has room). */
  freesAt: number;
  /** When the writes waiting now would all have gone, at the budget's pace. */
  drainsAt: number;
}

export interface BudgetGateOptions {
  /** The forge's name in messages (`GitHub`). */
  forge: string;
  windows: readonly BudgetWindow[];
  /** Least time between two writes of a scope (0: none), kept as one more window. */
  floorMs?: number;
  rules?: TurnRules;
  /** The wall clock: budgets' resets (the forge's epoch times), and every time shown or handed on. */
  now: () => number;
  /**
   * The clock of the windows and waits: a monotonic one in the bridge (performance.now), so a wall clock set back
   * an hour does not hold every write for that hour; the wall clock when not given.
   */
  monotonic?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** A final status of an identity after its create keeps the create's wait for this long. */
const INHERIT_MS = 120_000;
/** A waiting write that has not come back this long after its turn is forgotten (its workload may be gone). */
const FORGET_MS = 10 * 60_000;

interface Book {
  sent: number[];
  waiting: Map<string, Waiting>;
  /** Identities served lately: since when they had waited; in the order they were served. */
  served: Map<string, { since: number; at: number }>;
  inflight: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The ledger of every scope of one forge's credentials. */
export class BudgetGate {
  private readonly books = new Map<string, Book>();
  private readonly windows: readonly BudgetWindow[];
  private readonly rules: TurnRules;
  private untagged = 0;

  /** The configured windows (without the floor). */
  get budget(): readonly BudgetWindow[] {
    return this.o.windows;
  }

  constructor(private readonly o: BudgetGateOptions) {
    const floor = o.floorMs ?? 0;
    const kept = o.windows.map(withMargin);
    this.windows = floor > 0 ? [{ count: 1, ms: floor }, ...kept] : kept;
    this.rules = o.rules ?? DEFAULT_TURN_RULES;
  }

  /**
   * Waits for the write's turn (at most `holdMs`) and counts it, or throws BudgetDeferred. Without a turn
   * (a call that names none) it ranks as production's final statuses.
   */
  async write(scope: string, turn: Turn | undefined): Promise<void> {
    const now = this.mono();
    const book = this.book(scope, now);
    const t = turn ?? { key: `untagged:${++this.untagged}`, class: 'production' as const, final: true };
    const known = book.waiting.get(t.key);
    // A final status keeps the wait of its identity's create; an `in_progress` after it queues afresh, so under
    // backlog its moment has often passed (the rollout finished) by its turn, and the final status goes instead.
    const since = known?.since ?? (t.final ? book.served.get(t.key)?.since : undefined) ?? now;
    const me: Waiting = { ...t, since, due: now };
    const decision = decideTurn(this.windows, book.sent, [...book.waiting.values()], me, now, this.rules);
    if ('retryAt' in decision) {
      book.waiting.set(t.key, { ...me, due: decision.retryAt });
      throw new BudgetDeferred(
        `${this.o.forge} write budget of ${scope} (${book.waiting.size} waiting): this ${t.class} write's turn comes at ${iso(this.wall(decision.retryAt))}`,
        this.wall(decision.retryAt),
      );
    }
    book.waiting.delete(t.key);
    // Deleted first so the map stays in the order of `at`: the prune in book() stops at the first one still kept.
    book.served.delete(t.key);
    book.served.set(t.key, { since, at: now });
    book.sent.push(decision.sendAt);
    if (decision.sendAt > now) await (this.o.sleep ?? sleep)(decision.sendAt - now);
  }

  /**
   * A request (read or write) with a turn spends the primary budget only while its class's reserve is left;
   * else it waits for the reset (BudgetDeferred). Returns the release to call once it is answered.
   */
  spend(scope: string, turn: Turn, budget: Budget | undefined): () => void {
    const now = this.mono();
    const book = this.book(scope, now);
    if (budget !== undefined && budget.resetAt > this.o.now()) {
      const since = book.waiting.get(turn.key)?.since ?? book.served.get(turn.key)?.since ?? now;
      const rank = rankOf({ ...turn, since, due: now }, now, this.rules.agingMs);
      if (!primaryAllows(budget.limit, budget.remaining, book.inflight, rank)) {
        const at = budget.resetAt + 1_000;
        throw new BudgetDeferred(
          `${this.o.forge} request budget of ${scope}: ${budget.remaining} of ${budget.limit} left are kept for more urgent work until ${iso(at)}`,
          at,
        );
      }
    }
    book.inflight += 1;
    let released = false;
    return () => {
      if (!released) book.inflight -= 1;
      released = true;
    };
  }

  /** Every scope's backlog (scopes that wrote lately or have writes waiting). */
  backlog(): ScopeBacklog[] {
    const now = this.mono();
    return [...this.books.keys()].map((scope) => {
      const book = this.book(scope, now);
      const live = [...book.waiting.values()].filter((w) => now <= w.due + this.rules.graceMs);
      const slots = nextSlots(this.windows, book.sent, now, live.length + 1);
      const oldest = live.reduce<Waiting | undefined>((a, w) => (a === undefined || goesBefore(w, a, now, Infinity) ? w : a), undefined);
      return {
        scope,
        waiting: live.length,
        oldestSince: oldest === undefined ? null : this.wall(oldest.since),
        freesAt: this.wall(slots[0] ?? now),
        drainsAt: this.wall(live.length === 0 ? now : (slots[live.length - 1] ?? now)),
      };
    });
  }

  private mono(): number {
    return (this.o.monotonic ?? this.o.now)();
  }

  /** A time of the windows' clock as the wall clock's. */
  private wall(at: number): number {
    return this.o.monotonic === undefined ? at : this.o.now() + (at - this.o.monotonic());
  }

  /** The scope's book, with what no longer counts dropped. */
  private book(scope: string, now: number): Book {
    let book = this.books.get(scope);
    if (book === undefined) {
      book = { sent: [], waiting: new Map(), served: new Map(), inflight: 0 };
      this.books.set(scope, book);
    }
    // Stale sends change no slot (nextSlots never reaches them), so they are dropped once they are half the
    // ledger: a copy per write of a large ledger (a large count such as 1000000/1m) would be garbage per write.
    const drop = stale(this.windows, book.sent, now);
    if (drop > 0 && drop * 2 >= book.sent.length) book.sent.splice(0, drop);
    for (const [k, w] of book.waiting) if (w.due + FORGET_MS < now) book.waiting.delete(k);
    for (const [k, s] of book.served) {
      if (s.at + INHERIT_MS >= now) break;
      book.served.delete(k);
    }
    return book;
  }
}
