/**
 * Pull request comments' retention, beside their tables' migrations: a comment whose rows are all gone, with nothing
 * left to write, goes 14 days after its last change (the pull request was closed: a preview that comes back later gets
 * a new comment), and its rows with it. Composed in `features/retention.ts`, whether or not comments are turned on.
 */
import type { PruneStep } from '../../store/retention.js';

const DAY_MS = 24 * 60 * 60_000;

/** How long a settled comment is kept after its last change. */
export const COMMENTS_RETENTION = { settledMs: 14 * DAY_MS } as const;

/** A comment row `r` of comment `c`. */
const SAME_COMMENT = `r.forge = c.forge AND r.owner = c.owner AND r.repo = c.repo AND r.pr = c.pr AND r.cluster = c.cluster`;

/** In this order: a comment's rows go once the comment went. */
export const COMMENTS_PRUNE_STEPS = [
  {
    table: 'pr_comments',
    prune: (db, now) =>
      db
        .prepare(
          `DELETE FROM pr_comments AS c WHERE c.pending = 0 AND c.dirty = 0 AND c.updated_at < ? AND NOT EXISTS (SELECT 1
        FROM pr_comment_rows r WHERE ${SAME_COMMENT} AND r.state != 'gone')`,
        )
        .run(now - COMMENTS_RETENTION.settledMs).changes,
  },
  {
    table: 'pr_comment_rows',
    prune: (db) =>
      db.prepare(`DELETE FROM pr_comment_rows AS r WHERE NOT EXISTS (SELECT 1 FROM pr_comments c WHERE ${SAME_COMMENT})`).run().changes,
  },
] as const satisfies readonly PruneStep[];
