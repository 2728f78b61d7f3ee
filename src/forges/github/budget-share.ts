/**
 * A bridge's share of a write budget it shares with other bridges (several clusters on one GitHub App or
 * token: GitHub's secondary limits count the identity, not the process). Pure: the share as configured
 * (`1/5`, `0.2`, `20%`), and the windows it leaves this bridge (each count scaled down, durations and the
 * ordering rules unchanged), so that N bridges with shares summing to at most 1 stay inside the windows together.
 */
import type { BudgetWindow } from './write-budget.js';

const FRACTION = /^(\d+)\s*\/\s*(\d+)$/;
const PERCENT = /^(\d+(?:\.\d+)?)\s*%$/;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** The share (0 < share ≤ 1) from `1/5`, `0.2` or `20%`, or the problem with the text. */
export function parseShare(text: string): number | { problem: string } {
  const t = text.trim();
  const f = FRACTION.exec(t);
  const p = PERCENT.exec(t);
  const share = f ? Number(f[1]) / Number(f[2]) : p ? Number(p[1]) / 100 : DECIMAL.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(share) || share <= 0 || share > 1)
    return { problem: 'must be a share above 0 and at most 1 of the budget, such as 1/5, 0.2 or 20%' };
  return share;
}

/**
 * The windows a bridge with `share` of the budget keeps: each count × share, rounded down, at least 1 (a
 * window's last write may so go over the share: with more bridges than a window's count, give them
 * smaller windows by hand). A share of 1 is the budget itself.
 */
export function shareOf(windows: readonly BudgetWindow[], share: number): BudgetWindow[] {
  if (share >= 1) return windows.map((w) => ({ ...w }));
  // The epsilon keeps 80 × (1/5) at 16, not 15.999….
  return windows.map((w) => ({ count: Math.max(1, Math.floor(w.count * share + 1e-9)), ms: w.ms }));
}
