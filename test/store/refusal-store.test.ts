import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { openDatabase } from '../harness/database.js';

const refusal = (key: string, reason = 'App not installed on acme/web', retryAt = 10_000) => ({
  forge: 'github',
  key,
  code: 'github_not_installed' as const,
  reason,
  status: 404,
  retryAt,
});

t.test('refusals hold until their retry time, survive a restart, and clear on success', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-refusals-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'db.sqlite');
  let db = openDatabase(path);
  let store = new RefusalStore(db);
  t.equal(store.active(['repo:acme/web', 'deployment:x'], 0), undefined);
  t.match(store.record(refusal('repo:acme/web'), 1_000), { since: 1_000, retryAt: 10_000 });
  store.record(refusal('deployment:x', 'commit abc1234 not found in acme/web', 20_000), 1_500);
  t.match(store.active(['repo:acme/web', 'deployment:x'], 5_000), { key: 'repo:acme/web' }, 'the first key given wins');
  t.match(store.active(['deployment:x', 'repo:acme/web'], 5_000), { key: 'deployment:x' });
  t.match(store.active(['repo:acme/web', 'deployment:x'], 10_000), { key: 'deployment:x' }, 'due at its retry time');
  db.close();
  db = openDatabase(path);
  store = new RefusalStore(db);
  t.match(store.active(['repo:acme/web'], 9_999), { reason: 'App not installed on acme/web' }, 'kept across a restart');
  t.match(
    store.record(refusal('repo:acme/web', 'App not installed on acme/web', 30_000), 12_000),
    { since: 1_000, retryAt: 30_000 },
    'the same reason keeps its first time',
  );
  t.match(store.record(refusal('repo:acme/web', 'something else', 40_000), 13_000), { since: 13_000, reason: 'something else' });
  t.same(store.counts(13_000), [{ forge: 'github', code: 'github_not_installed', count: 2 }]);
  t.equal(store.list().length, 2);
  store.clear(['repo:acme/web', 'deployment:x']);
  t.same(store.list(), []);
  db.close();
  t.end();
});
