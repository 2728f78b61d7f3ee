/**
 * The write budget of one credential scope, forge-neutral and pure: sliding windows (`80/1m,500/1h`: no more
 * than 80 writes in any minute and 500 in any hour), the times the next writes may go, and which waiting
 * write goes first. The stateful ledger around it is `budget-gate.ts`.
 */
import { parseDuration } from '../../common/setting-parsers.js';

/** No more than `count` writes in any `ms` (a sliding window). */
export interface BudgetWindow {
  count: number;
  ms: number;
}

const WINDOW = /^(\d+)\s*\/\s*(\S+)$/;

/** `<count>/<duration>` windows from a comma list (`80/1m,500/1h`), or the problem with the text. */
export function parseBudget(text: string): BudgetWindow[] | { problem: string } {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return { problem: 'must name at least one window <count>/<duration>, such as 80/1m,500/1h' };
  const out: BudgetWindow[] = [];
  for (const part of parts) {
    const m = WINDOW.exec(part);
    const count = m ? Number(m[1]) : NaN;
    const ms = m?.[2] === undefined ? undefined : parseDuration(m[2]);
    if (!m || !Number.isSafeInteger(count) || count < 1 || ms === undefined || ms <= 0)
      return { problem: `has "${part}": each window must be <count>/<duration> with a count of at least 1, such as 80/1m or 500/1h` };
    out.push({ count, ms });
  }
  return out.sort((a, b) => a.ms - b.ms);
}

/**
 * A window as the bridge keeps it: a little longer than configured (5 %, from 50 ms to 1 s), so writes that
 * arrive later than they were sent (a slow hop, a loaded machine) still fit the forge's own count.
 */
export const withMargin = (w: BudgetWindow): BudgetWindow => ({
  count: w.count,
  ms: w.ms + Math.min(1_000, Math.max(50, Math.round(w.ms * 0.05))),
});

/** The windows as configured text (`80/1m,500/1h`), for /state. */
export function budgetText(windows: readonly BudgetWindow[]): string {
  const unit = (ms: number) =>
    ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
  return windows.map((w) => `${w.count}/${unit(w.ms)}`).join(',');
}

/**
 * How many of the oldest send times (ascending) no longer count at `now`: those outside the longest window,
 * and those more than the largest count back (a window only looks at the write `count` places before). Pure,
 * O(log n): the gate drops them in place, so a scope's ledger never holds more than a window's writes.
 */
export function stale(windows: readonly BudgetWindow[], sent: readonly number[], now: number): number {
  const longest = Math.max(0, ...windows.map((w) => w.ms));
  const most = Math.max(0, ...windows.map((w) => w.count));
  let [lo, hi] = [0, sent.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sent[mid] ?? Infinity) > now - longest) hi = mid;
    else lo = mid + 1;
  }
  return Math.max(lo, sent.length - most);
}

/**
 * The times at which the next `n` writes may go, earliest first, if each is sent as soon as allowed: for
 * every window, a write must come at least `ms` after the write `count` places before it. `sent`: the times
 * of earlier writes, ascending (read, not copied: O(n × windows) whatever the ledger's length).
 */
export function nextSlots(windows: readonly BudgetWindow[], sent: readonly number[], now: number, n: number): number[] {
  const out: number[] = [];
  const at = (i: number) => (i < sent.length ? sent[i] : out[i - sent.length]);
  for (let i = 0; i < n; i++) {
    let slot = now;
    for (const w of windows) {
      const index = sent.length + out.length - w.count;
      const before = index >= 0 ? at(index) : undefined;
      if (before !== undefined) slot = Math.max(slot, before + w.ms);
    }
    out.push(slot);
  }
  return out;
}

/**
 * What a write is worth under backlog, best first: final statuses (success, failure) of production, then the
 * rest of production (its creates, `in_progress`), then other environments, then previews, then `inactive`;
 * pull request comments last, in a class of their own (`COMMENT_CLASS`).
 */
export type TurnClass = 'production' | 'environment' | 'preview' | 'inactive' | 'comment';

const CLASS_RANK: Record<TurnClass, number> = { production: 0, environment: 1, preview: 2, inactive: 3, comment: 4 };

/**
 * Pull request comments' class: it never ages (no wait lifts it above deployment work, nor into the primary
 * reserve), uses only OPTIONAL_SHARE of every window, and never waits in place (a write whose slot is not now is
 * told to come back: it holds no slot it does not use). Its rate limits pause comments only (the clients' part).
 */
export const COMMENT_CLASS = 'comment' satisfies TurnClass;

/** One request's place in its scope's line: whose it is (an identity key), its class, whether it carries a final state. */
export interface Turn {
  key: string;
  class: TurnClass;
  /** A final status (success, failure): before the `in_progress` and creates of its class. */
  final: boolean;
  /**
   * A write worth the least under pressure (`in_progress`, `inactive`): it uses only the first OPTIONAL_SHARE of
   * every window until it has waited `agingMs`; the rest is kept for creates and final statuses.
   */
  optional?: boolean;
}

/** The share of every window an optional write may use before it has aged. */
export const OPTIONAL_SHARE = 0.25;

/** The windows an optional write that has not aged may use: OPTIONAL_SHARE of each count (at least 1). */
export function optionalWindows(windows: readonly BudgetWindow[]): BudgetWindow[] {
  return windows.map((w) => (w.count <= 1 ? w : { count: Math.max(1, Math.floor(w.count * OPTIONAL_SHARE)), ms: w.ms }));
}

/** A write waiting for its turn: since when its identity has waited, and when it was told to come back. */
export interface Waiting extends Turn {
  since: number;
  due: number;
}

export interface TurnRules {
  /** Waiting this long lifts a write one class (starvation-free: the oldest write eventually goes first). */
  agingMs: number;
  /** A write told to come back that is this late is passed over until it does. */
  graceMs: number;
  /** A write whose slot is at most this far ahead waits for it in place; a later one is told to come back. */
  holdMs: number;
}

export const DEFAULT_TURN_RULES: TurnRules = { agingMs: 5 * 60_000, graceMs: 15_000, holdMs: 5_000 };

/** A write's rank at `now` (lower goes first): its class, half a class down when not final, lifted one class per `agingMs` waited. */
export function rankOf(w: Waiting, now: number, agingMs: number): number {
  const aged = w.class === COMMENT_CLASS ? 0 : Math.max(0, now - w.since) / agingMs;
  return CLASS_RANK[w.class] + (w.final ? 0 : 0.5) - aged;
}

/** Whether `a` goes before `b` at `now`: lower rank, then the longer wait, then the key (a total order). */
export function goesBefore(a: Waiting, b: Waiting, now: number, agingMs: number): boolean {
  const ra = rankOf(a, now, agingMs);
  const rb = rankOf(b, now, agingMs);
  if (ra !== rb) return ra < rb;
  if (a.since !== b.since) return a.since < b.since;
  return a.key < b.key;
}

/** What the budget says to a write: send at `sendAt` (now or within `holdMs`), or come back at `retryAt`. */
export type TurnDecision = { sendAt: number } | { retryAt: number };

/**
 * Decides one write's turn: the writes of `others` that go before it and are not late each take one of the
 * next slots; it gets the one after them. Pure.
 */
export function decideTurn(
  windows: readonly BudgetWindow[],
  sent: readonly number[],
  others: readonly Waiting[],
  me: Waiting,
  now: number,
  rules: TurnRules = DEFAULT_TURN_RULES,
): TurnDecision {
  const ahead = others.filter((w) => w.key !== me.key && now <= w.due + rules.graceMs && goesBefore(w, me, now, rules.agingMs)).length;
  const comment = me.class === COMMENT_CLASS;
  const held = comment || (me.optional === true && now - me.since < rules.agingMs);
  const at = nextSlots(held ? optionalWindows(windows) : windows, sent, now, ahead + 1)[ahead] ?? now;
  return at <= now + (comment ? 0 : rules.holdMs) ? { sendAt: at } : { retryAt: at };
}

/** Share of the primary budget (per hour) kept back from a request of each rank: production's final statuses keep 1 %. */
const RESERVE_BASE = 0.01;
const RESERVE_PER_RANK = 0.05;

/**
 * Whether a request of `rank` may spend from a primary budget with `remaining` of `limit` left (`inflight`
 * asked but not yet answered): each class keeps a larger share back, so a cold start's reads (previews,
 * `inactive` first) stop before the budget is spent and wait for the reset, while production goes on. Pure.
 */
export function primaryAllows(limit: number, remaining: number, inflight: number, rank: number): boolean {
  const reserve = Math.max(1, Math.ceil(limit * (RESERVE_BASE + RESERVE_PER_RANK * Math.max(0, rank))));
  return remaining - inflight > reserve;
}
