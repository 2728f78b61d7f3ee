import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { TransientEnvironmentStore } from '../../src/store/transient-store.js';
import { openDatabase } from '../harness/database.js';

const preview = { forge: 'gitlab', owner: 'platform/team', repo: 'app', environment: 'review/pr-42' };

t.test('a transient environment is remembered across a reopen, per forge, until forgotten', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-transient-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  const first = openDatabase(path);
  const store = new TransientEnvironmentStore(first);
  t.equal(store.has(preview), false);
  store.mark(preview, 1000);
  store.mark(preview, 2000);
  t.equal(store.has(preview), true);
  t.equal(store.has({ ...preview, forge: 'forgejo' }), false, 'another forge');
  t.equal(store.has({ ...preview, environment: 'review/pr-43' }), false, 'another environment');
  const since = first.prepare(`SELECT since FROM transient_environments`).all();
  t.same(since, [{ since: 1000 }], 'marked once: the second mark wrote nothing');
  first.close();

  const reopened = openDatabase(path);
  t.teardown(() => reopened.close());
  const again = new TransientEnvironmentStore(reopened);
  t.equal(again.has(preview), true, 'survives the restart');
  again.forget(preview);
  t.equal(again.has(preview), false);
  t.end();
});
