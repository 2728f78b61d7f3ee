/** Pull request comments' retention (comments-retention.ts), run as the runtime's prune runs it. */
import t from 'tap';
import { COMMENTS_RETENTION } from '../../../src/features/comments/comments-retention.js';
import { openDatabase, pruneStorage } from '../../harness/database.js';

const DAY = 24 * 60 * 60_000;
const T0 = Date.UTC(2026, 0, 1);

t.test('pull request comments: gone 14 days after the last change once every row is gone and nothing is left to write', (t) => {
  const db = openDatabase(':memory:');
  const comment = (pr: number, o: { dirty?: number; pending?: number; updatedAt: number }) =>
    db
      .prepare(
        `INSERT INTO pr_comments (forge, owner, repo, pr, cluster, comment_id, pending, dirty, updated_at)
         VALUES ('github', 'acme', 'web', ?, 'prod', ?, ?, ?, ?)`,
      )
      .run(pr, 1000 + pr, o.pending ?? 0, o.dirty ?? 0, o.updatedAt);
  const row = (pr: number, environment: string, state: string) =>
    db
      .prepare(
        `INSERT INTO pr_comment_rows (forge, owner, repo, pr, cluster, environment, deployment_name, sha, state, why, updated_at)
         VALUES ('github', 'acme', 'web', ?, 'prod', ?, 'web', 'abc1234', ?, 'change_request', ?)`,
      )
      .run(pr, environment, state, T0);
  comment(1, { updatedAt: T0 }); // closed long ago: every row gone
  row(1, 'pr-1', 'gone');
  row(1, 'pr-1-db', 'gone');
  comment(2, { updatedAt: T0 }); // one row still live
  row(2, 'pr-2', 'gone');
  row(2, 'pr-2-db', 'success');
  comment(3, { updatedAt: T0, dirty: 1 }); // an edit still due
  row(3, 'pr-3', 'gone');
  comment(4, { updatedAt: T0 + 10 * DAY }); // closed recently
  row(4, 'pr-4', 'gone');
  const pruned = pruneStorage(db, T0 + 14 * DAY + 1);
  t.equal(pruned.pr_comments, 1, 'only the settled comment');
  t.equal(pruned.pr_comment_rows, 2, 'and its rows');
  const left = db.prepare(`SELECT pr FROM pr_comments ORDER BY pr`).all() as { pr: number }[];
  t.same(
    left.map((r) => r.pr),
    [2, 3, 4],
  );
  t.equal((db.prepare(`SELECT count(*) AS n FROM pr_comment_rows`).get() as { n: number }).n, 4);
  t.end();
});

t.test('a settled comment is kept 14 days: exactly that old, it stays', (t) => {
  t.equal(COMMENTS_RETENTION.settledMs, 14 * DAY);
  const db = openDatabase(':memory:');
  db.prepare(
    `INSERT INTO pr_comments (forge, owner, repo, pr, cluster, comment_id, pending, dirty, updated_at)
     VALUES ('github', 'acme', 'web', 1, 'prod', 1001, 0, 0, ?)`,
  ).run(T0);
  t.equal(pruneStorage(db, T0 + 14 * DAY).pr_comments, 0);
  t.equal(pruneStorage(db, T0 + 14 * DAY + 1).pr_comments, 1);
  t.end();
});
