/** The status page's sections beyond deployments, skips and the queue: each forge's write backlog. */
import type { WriteBudgetView } from '../forges/forge.js';
import { cell, escapeHtml, readableTime, table } from '../common/html.js';

/** A forge's write budget as its typed port gives it (`Forge.writeBudget`), under the forge's title. */
export interface ForgeWriteBudget {
  title: string;
  view: WriteBudgetView;
}

/** Per forge with a write budget: the budget, and per credential scope what waits for its turn. */
export function writeBudgetSection(budgets: readonly ForgeWriteBudget[]): string {
  const parts = budgets.map(({ title, view }) => {
    const rows = view.scopes.map(
      (s) =>
        `<tr>${cell(s.scope)}${cell(s.waiting)}${cell(`${s.oldestWaitingSeconds} s`)}${cell(readableTime(s.budgetFreesAt))}${cell(`${s.drainsInSeconds} s`)}</tr>`,
    );
    return (
      `<h3>${escapeHtml(title)} · ${escapeHtml(view.budget)}</h3>` +
      table(['credential scope', 'writes waiting', 'oldest waiting', 'budget frees at', 'drains in'], rows)
    );
  });
  return parts.length === 0 ? '' : `<h2>Write budget</h2>\n${parts.join('')}`;
}
