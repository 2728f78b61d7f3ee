import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ImageCache } from '../../src/store/image-cache.js';
import { openDatabase } from '../harness/database.js';

const dir = mkdtempSync(join(tmpdir(), 'image-cache-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

t.test('labels by digest and platform, tags with their check time, kept across reopening', (t) => {
  const path = join(dir, 'cache.db');
  let db = openDatabase(path);
  let cache = new ImageCache(db);
  t.equal(cache.getImage(D1, 'linux/amd64'), undefined);
  cache.putImage('linux/amd64', { digest: D1, platformDigest: D2, labels: { a: '1' } }, 100);
  cache.putImage('linux/arm64', { digest: D1, labels: { a: 'arm' } }, 100);
  cache.putTag('ghcr.io/acme/app:1', D1, 1_000);
  cache.putTag('ghcr.io/acme/app:1', D2, 2_000);
  db.close();

  db = openDatabase(path);
  t.teardown(() => db.close());
  cache = new ImageCache(db);
  t.strictSame(cache.getImage(D1, 'linux/amd64'), { digest: D1, platformDigest: D2, labels: { a: '1' } });
  t.strictSame(cache.getImage(D1, 'linux/arm64'), { digest: D1, labels: { a: 'arm' } });
  t.equal(cache.getImage(D1, 'linux/s390x'), undefined, 'per platform');
  t.strictSame(cache.getTag('ghcr.io/acme/app:1'), { digest: D2, checkedAt: 2_000 }, 'the last check wins');
  t.equal(cache.getTag('ghcr.io/acme/app:2'), undefined);

  db.prepare(`UPDATE image_labels SET labels = '{broken' WHERE platform = 'linux/arm64'`).run();
  t.equal(cache.getImage(D1, 'linux/arm64'), undefined, 'a damaged row is a miss, to be read again');
  cache.putImage('linux/arm64', { digest: D1, labels: {} }, 300);
  t.strictSame(cache.getImage(D1, 'linux/arm64'), { digest: D1, labels: {} }, 'and overwritten');
  t.end();
});
