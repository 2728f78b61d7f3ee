/** The status page's sections beyond deployments, skips and the queue: each forge's write backlog. */
import type { StateSnapshot } from './state-snapshot.js';
import { cell, escapeHtml, readableTime, table } from '../common/html.js';

/** The part of a forge's /state that a write budget adds (forge-state.ts `backlogState`). */
interface WriteBudgetState {
  budget: string;
  scopes: { scope: string; waiting: number; oldestWaitingSeconds: number; budgetFreesAt: string | null; drainsInSeconds: number }[];
}

function writeBudgetOf(forgeState: unknown): WriteBudgetState | undefined {
  const wb = (forgeState as { writeBudget?: unknown } | null | undefined)?.writeBudget;
  if (typeof wb !== 'object' || wb === null) return undefined;
  const w = wb as Partial<WriteBudgetState>;
  return typeof w.budget === 'string' && Array.isArray(w.scopes) ? (w as WriteBudgetState) : undefined;
}

/** Per forge with a write budget: the budget, and per credential scope what waits for its turn. */
export function writeBudgetSection(state: StateSnapshot, titles: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  for (const [name, title] of Object.entries(titles)) {
    const wb = writeBudgetOf((state as Record<string, unknown>)[name]);
    if (wb === undefined) continue;
    const rows = wb.scopes.map(
      (s) =>
        `<tr>${cell(s.scope)}${cell(s.waiting)}${cell(`${s.oldestWaitingSeconds} s`)}${cell(readableTime(s.budgetFreesAt))}${cell(`${s.drainsInSeconds} s`)}</tr>`,
    );
    parts.push(
      `<h3>${escapeHtml(title)} · ${escapeHtml(wb.budget)}</h3>` +
        table(['credential scope', 'writes waiting', 'oldest waiting', 'budget frees at', 'drains in'], rows),
    );
  }
  return parts.length === 0 ? '' : `<h2>Write budget</h2>\n${parts.join('')}`;
}
