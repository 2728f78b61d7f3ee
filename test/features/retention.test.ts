/** The features' retention, composed from the folders that own the tables (as their migrations are). */
import t from 'tap';
import { COMMENTS_MIGRATIONS } from '../../src/features/comments/comments-migrations.js';
import { COMMENTS_PRUNE_STEPS } from '../../src/features/comments/comments-retention.js';
import { DORA_MIGRATIONS } from '../../src/features/dora/dora-migrations.js';
import { DORA_PRUNE_STEPS } from '../../src/features/dora/dora-retention.js';
import { FEATURE_PRUNE_STEPS } from '../../src/features/retention.js';
import type { Migration } from '../../src/store/migrations.js';
import { openDatabase, pruneStorage } from '../harness/database.js';

t.test('a prune counts every table, the core ones first, then each feature in the order its tables depend on', (t) => {
  t.same(Object.keys(pruneStorage(openDatabase(':memory:'), Date.UTC(2026, 0, 1))), [
    'sources',
    'skips',
    'image_labels',
    'image_tags',
    'forge_refusals',
    'deployments',
    // A comment's rows go after the comment; commit times and environment kinds by the outcomes left.
    'pr_comments',
    'pr_comment_rows',
    'deployment_outcomes',
    'commit_times',
    'environment_kinds',
  ]);
  t.end();
});

t.test("each feature prunes only tables its own migrations create, and every feature's steps are composed", (t) => {
  const created = (ms: readonly Migration[]) => ms.flatMap((m) => [...m.sql.matchAll(/CREATE TABLE (\w+)/g)].map((c) => c[1]));
  const owners: Array<[string, readonly Migration[], ReadonlyArray<{ table: string }>]> = [
    ['comments', COMMENTS_MIGRATIONS, COMMENTS_PRUNE_STEPS],
    ['dora', DORA_MIGRATIONS, DORA_PRUNE_STEPS],
  ];
  for (const [name, migrations, steps] of owners) {
    const tables = created(migrations);
    for (const { table } of steps) t.ok(tables.includes(table), `${name} creates ${table}`);
  }
  t.same(
    FEATURE_PRUNE_STEPS,
    owners.flatMap(([, , steps]) => steps),
    'composed in the order the schema composes them',
  );
  t.end();
});
