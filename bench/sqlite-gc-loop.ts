/**
 * One process of bench/runtime-soundness.ts's connection loop, run with `--expose-gc`: opens LOOPS store
 * connections (openDatabase: WAL, migrations, kept statements) over a few files, uses each (queue writes
 * in a durable transaction, reads), then closes a third, keeps a third open until exit and drops a third
 * open for the GC to finalise. Every other connection is the driver's own (`new Database`, statements
 * prepared anew each time and left to the GC), so the driver is tried without the store's kept-statements
 * cache too. Forces GCs both synchronously and from V8's own tasks (`execution: 'async'`,
 * where no JavaScript context is entered: the case that aborted better-sqlite3 12 on Node 24), and exits
 * with connections still open. Exit 0 means no abort.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { durably, type Db } from '../src/store/database.js';
import { openDatabase } from '../test/harness/database.js';

type Gc = (options?: { type: 'major' | 'minor'; execution: 'sync' | 'async' }) => void;
const gc = (globalThis as { gc?: Gc }).gc;
if (!gc) throw new Error('run with --expose-gc');

const LOOPS = Number(process.argv[2] ?? 300);
function churn(): number {
  const junk: Array<{ k: number; s: string }> = [];
  for (let k = 0; k < 2000; k++) junk.push({ k, s: `workload-${k}`.padEnd(50, '.') });
  return junk.length;
}
const dir = mkdtempSync(join(tmpdir(), 'gdb-gc-loop-'));
const open: Db[] = [];
for (let i = 0; i < LOOPS; i++) {
  const file = join(dir, `bridge-${Math.floor(i / 2) % 10}.db`); // opened by openDatabase first (its schema)
  const db = i % 2 === 0 ? openDatabase(file) : new Database(file);
  durably(db, () => {
    for (let j = 0; j < 5; j++)
      db.prepare(
        `INSERT INTO queue (kind, namespace, name, not_before, enqueued_at) VALUES ('Kustomization', 'apps', ?, 0, 0)
         ON CONFLICT (kind, namespace, name) DO UPDATE SET attempts = attempts + 1`,
      ).run(`app-${j}`);
  });
  db.prepare('SELECT count(*) AS n FROM queue').get();
  db.prepare(`SELECT * FROM queue WHERE name = 'app-${i % 7}'`).all();
  if (i % 3 === 0) db.close();
  else if (i % 3 === 1) open.push(db);
  if (open.length > 30) open.shift();
  if (i % 7 === 0) gc({ type: 'major', execution: 'async' });
  if (i % 5 === 0) gc({ type: 'minor', execution: 'async' });
  if (i % 11 === 0) gc();
  // Garbage of the shape a reconcile leaves (parsed objects, strings), so the young generation also fills by itself.
  if (churn() === 0) break;
  await new Promise((r) => setImmediate(r));
}
gc();
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
