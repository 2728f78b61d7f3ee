/**
 * Issue 22, item 7: a page damaged after the start's integrity check. Before, `/readyz` answered 200 while every
 * `/state` answered 500 SQLITE_CORRUPT; now the first statement that meets the damage makes the bridge not ready,
 * with the reason, until a restart checks the file again.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { createMetrics } from '../../src/common/metrics.js';
import { createReadiness } from '../../src/health/readiness.js';
import { isDamage } from '../../src/store/corruption-watch.js';
import { closeStorage, storageHealthFor } from '../../src/store/open-storage.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { runPragma } from '../../src/store/kept-statements.js';
import { openStorage } from '../harness/database.js';

t.test('a damaged page met by a statement while running: not ready, with the reason, and it stays so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-damage-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  const db = openStorage(path);
  t.teardown(() => closeStorage(db));
  const queue = new QueueStore(db);
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) queue.enqueue({ kind: 'Kustomization', namespace: 'apps', name: `app-${i}-${'x'.repeat(40)}` }, 0);
  })();
  runPragma(db, 'wal_checkpoint(TRUNCATE)');
  const metrics = createMetrics();
  const logs: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => logs.push(line) });
  const storage = storageHealthFor(db, path, { metrics, log, now: () => Date.UTC(2026, 0, 1) });
  const readiness = createReadiness({
    storage,
    db,
    kube: () => ({ lastOk: Date.UTC(2026, 0, 1), lastError: null }),
    forges: [],
    skips: () => [],
    resyncIntervalMs: 60_000,
    now: () => Date.UTC(2026, 0, 1),
  });
  t.equal(readiness().ready, true, 'healthy at first');

  // Two pages in the middle overwritten while the bridge runs (a failing disk); the connection's cache let go.
  const pages = readFileSync(path).length / 4096;
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(2 * 4096, 0xa5), 0, 2 * 4096, Math.floor(pages / 2) * 4096);
  closeSync(fd);
  runPragma(db, 'shrink_memory');

  const err = (() => {
    try {
      queue.list(5000);
      return undefined;
    } catch (e) {
      return e;
    }
  })();
  t.ok(isDamage(err), `the read fails as damaged (${String((err as { code?: string } | undefined)?.code)})`);
  const r = readiness();
  t.equal(r.ready, false, 'not ready');
  t.match(r.reasons, [
    new RegExp(`^database ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(.+, SQLITE_CORRUPT.*\\) since .+: restore it`),
  ]);
  t.equal(readiness().ready, false, 'still not ready: damage does not heal by a probe write');
  t.match(storage.snapshot(), { writable: true, damaged: /is damaged/ }, '/state says it');
  t.equal(logs.filter((l) => l.includes('database damaged')).length, 1, 'logged once');
  t.match(await metrics.registry.metrics(), /^gdb_storage_errors_total\{code="SQLITE_CORRUPT[A-Z_]*"\} 1$/m);
});
