/** The status page's sections beyond deployments, skips and the queue: each forge's write backlog, pull request comments. */
import type { WriteBudgetView } from '../forges/forge.js';
import type { StateSnapshot } from './state-snapshot.js';
import { cell, escapeHtml, readableTime, table } from './status-page-format.js';

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

/** What became of each pull request comment: written, being written, due, or skipped with its reason. */
function commentState(c: NonNullable<StateSnapshot['pullRequestComments']>[number]): string {
  if (c.skipReason !== null) return `skipped: ${c.skipReason}`;
  if (c.pending) return 'being created';
  if (c.due) return 'edit due';
  return c.writtenAt === null ? 'not written' : `written ${readableTime(c.writtenAt)}`;
}

/** Pull request comments (PULL_REQUEST_COMMENTS), when the bridge keeps them. */
export function commentsSection(state: StateSnapshot, titles: Readonly<Record<string, string>>): string {
  if (state.pullRequestComments === undefined) return '';
  const rows = state.pullRequestComments.map(
    (c) =>
      `<tr>${cell(titles[c.forge] ?? c.forge)}${cell(c.repository)}${cell(`#${c.pullRequest}`)}${cell(c.cluster)}${cell(commentState(c))}</tr>`,
  );
  const more = state.pullRequestCommentsOmitted ?? 0;
  const note = more > 0 ? `<p>…and ${more} more, not shown (the most lately changed first).</p>\n` : '';
  return `<h2>Pull request comments</h2>\n${table(['forge', 'repository', 'pull request', 'cluster', 'comment'], rows)}${note}`;
}
