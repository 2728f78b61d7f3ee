/** The pull request comments' part of `/state` and of the status page. */
import { cell, readableTime, table } from '../../common/html.js';
import type { Titles } from '../feature.js';
import type { CommentStore } from './comment-store.js';

/** The pull request comments /state and the status page list: the most lately changed (the rest counted). */
export const MAX_STATE_COMMENTS = 200;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The pull request a deployment's comment row belongs to (at its commit), and why; null when none names one. */
export function pullRequestOfRow(comments: CommentStore, d: Parameters<CommentStore['rowsOf']>[0] & { sha: string }) {
  const row = comments.rowsOf(d).find((r) => r.sha === d.sha && r.state !== 'gone') ?? comments.rowsOf(d).find((r) => r.sha === d.sha);
  if (row === undefined) return null;
  return { number: row.key.pr, why: row.why, ...(row.refusal === undefined ? {} : { leftOut: row.refusal }) };
}

/** `/state`'s `pullRequestComments` (and how many were left out). */
export function commentsState(comments: CommentStore) {
  return {
    pullRequestCommentsOmitted: Math.max(0, comments.count() - MAX_STATE_COMMENTS),
    pullRequestComments: comments.all(MAX_STATE_COMMENTS).map((c) => ({
      forge: c.forge,
      repository: `${c.owner}/${c.repo}`,
      pullRequest: c.pr,
      cluster: c.cluster,
      commentId: c.commentId,
      pending: c.pending,
      due: c.dirty,
      skipReason: c.skipReason,
      writtenAt: iso(c.writtenAt),
    })),
  };
}

type CommentsState = ReturnType<typeof commentsState>;

/** What became of each pull request comment: written, being written, due, or skipped with its reason. */
function commentState(c: CommentsState['pullRequestComments'][number]): string {
  if (c.skipReason !== null) return `skipped: ${c.skipReason}`;
  if (c.pending) return 'being created';
  if (c.due) return 'edit due';
  return c.writtenAt === null ? 'not written' : `written ${readableTime(c.writtenAt)}`;
}

/** Pull request comments (PULL_REQUEST_COMMENTS), when the bridge keeps them. */
export function commentsPage(state: Readonly<Record<string, unknown>>, titles: Titles): string {
  const s = state as Partial<CommentsState>;
  if (s.pullRequestComments === undefined) return '';
  const rows = s.pullRequestComments.map(
    (c) =>
      `<tr>${cell(titles[c.forge] ?? c.forge)}${cell(c.repository)}${cell(`#${c.pullRequest}`)}${cell(c.cluster)}${cell(commentState(c))}</tr>`,
  );
  const more = s.pullRequestCommentsOmitted ?? 0;
  const note = more > 0 ? `<p>…and ${more} more, not shown (the most lately changed first).</p>\n` : '';
  return `<h2>Pull request comments</h2>\n${table(['forge', 'repository', 'pull request', 'cluster', 'comment'], rows)}${note}`;
}
