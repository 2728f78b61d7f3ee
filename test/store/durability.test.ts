import t, { type Test } from 'tap';
import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { durably, type Db } from '../../src/store/database.js';
import { runPragma } from '../../src/store/kept-statements.js';
import { probeWrite } from '../../src/store/open-storage.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import type { Identity } from '../../src/lifecycle/identity.js';
import { CommitStatusRows } from '../../src/forges/forgejo/commit-status-rows.js';
import { SourceStore } from '../../src/store/source-store.js';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import { openDatabase } from '../harness/database.js';

/** SQLite's `PRAGMA synchronous` levels. */
const NORMAL = 1;
const FULL = 2;

const apps: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const id: Identity = { forge: 'github', owner: 'acme', repo: 'web', environment: 'production', sha: 'a'.repeat(40), deploymentName: 'web' };
const forgejoId: Identity = { ...id, forge: 'forgejo' };
const context = 'deploy/production (prod-eu-1)';
const origin = {
  source: apps,
  workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
  container: 'app',
  image: 'ghcr.io/acme/web:1.0.0',
};

function open(t: Test): Db {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-durability-'));
  const db = openDatabase(join(dir, 'bridge.db'));
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

/**
 * The SQL texts of the commits `op` makes, each with the synchronous level it ran at: every statement run
 * on the connection is seen (better-sqlite3 statements share one prototype), the level tracked from the
 * `PRAGMA synchronous = …` statements and read from autocommitted writes and COMMITs.
 */
function commitsOf(db: Db, op: () => void): Array<{ sql: string; level: number }> {
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Database.Statement;
  const descriptor = Object.getOwnPropertyDescriptor(proto, 'run');
  if (descriptor === undefined) throw new Error('better-sqlite3 statements changed: no run() on their prototype');
  const original = descriptor.value as (this: Database.Statement, ...args: unknown[]) => Database.RunResult;
  const seen: Array<{ sql: string; level: number }> = [];
  let level = Number(runPragma(db, 'synchronous'));
  const spy = function (this: Database.Statement, ...args: unknown[]) {
    const out = original.apply(this, args);
    const set = /^PRAGMA synchronous = (\w+)$/.exec(this.source);
    if (set) level = set[1] === 'FULL' ? FULL : NORMAL;
    else if (!this.reader && !db.inTransaction) seen.push({ sql: this.source.replace(/\s+/g, ' ').trim(), level });
    return out;
  };
  Object.defineProperty(proto, 'run', { ...descriptor, value: spy });
  try {
    op();
  } finally {
    Object.defineProperty(proto, 'run', descriptor);
  }
  return seen;
}

const durableCommits = (commits: Array<{ sql: string; level: number }>) => commits.filter((c) => c.level === FULL).length;

t.test('the connection runs WAL at NORMAL; durably() commits at FULL and goes back to NORMAL', (t) => {
  const db = open(t);
  t.equal(runPragma(db, 'journal_mode'), 'wal');
  t.equal(runPragma(db, 'synchronous'), NORMAL);
  t.equal(
    durably(db, () => runPragma(db, 'synchronous')),
    FULL,
    'FULL for the transaction',
  );
  t.equal(runPragma(db, 'synchronous'), NORMAL, 'NORMAL after it');
  t.throws(
    () =>
      durably(db, () => {
        db.prepare(`INSERT INTO sources (kind, namespace, name, last_seen) VALUES ('Kustomization', 'x', 'y', 1)`).run();
        throw new Error('boom');
      }),
    /boom/,
  );
  t.equal(runPragma(db, 'synchronous'), NORMAL, 'NORMAL after a failed write too');
  t.same(db.prepare(`SELECT COUNT(*) AS n FROM sources`).get(), { n: 0 }, 'the failed write rolled back');
  t.throws(() => db.transaction(() => durably(db, () => undefined))(), /inside a transaction/, 'refused inside a transaction');
  t.end();
});

t.test('exactly the writes that back a promise to the outside are durable', (t) => {
  const db = open(t);
  const queue = new QueueStore(db);
  const deployments = new DeploymentStore(db);
  const statuses = new CommitStatusRows(deployments);
  const sources = new SourceStore(db);
  deployments.insertProvisional(forgejoId, origin, 1, context);
  const forgejoKey = { owner: id.owner, repo: id.repo, sha: id.sha, context };
  // [what, the write, durable commits expected]
  const rows: Array<[string, () => void, number]> = [
    ['webhook intake (the 202)', () => queue.enqueueMany([{ ref: apps, now: 1, eventAt: 1 }]), 1],
    ['resync enqueue', () => queue.enqueue(apps, 2, null, true), 0],
    ['claim', () => queue.claim(3, 4), 0],
    ['source phase', () => sources.record({ ...apps, phase: 'Ready', reason: null, message: null, revision: null, lastSeen: 3 }), 0],
    ['provisional row', () => deployments.insertProvisional(id, origin, 4), 0],
    ['deployment id', () => deployments.setDeploymentId(id, 7, null, 5), 0],
    ['GitHub pending mark (before the POST)', () => deployments.setPending(id, 'success', 6), 1],
    ['GitHub status recorded', () => deployments.setState(id, 'success', 'done', 7), 0],
    ['GitHub pending mark cleared', () => deployments.setPending(id, null, 8), 0],
    ['Forgejo pending mark (before the POST)', () => statuses.setPending(forgejoKey, 'success', 9), 1],
    ['Forgejo status recorded', () => statuses.settle(forgejoKey, 'success', 'done', 10), 0],
    ['Forgejo pending mark cleared', () => statuses.setPending(forgejoKey, null, 11), 0],
    ['queue outcome', () => queue.complete(apps, 12), 0],
    ['storage probe', () => probeWrite(db), 1],
  ];
  for (const [what, write, durable] of rows) {
    const commits = commitsOf(db, write);
    t.ok(commits.length > 0, `${what}: commits something`);
    t.equal(durableCommits(commits), durable, `${what}: ${durable} durable commit(s) of ${JSON.stringify(commits)}`);
    t.equal(runPragma(db, 'synchronous'), NORMAL, `${what}: NORMAL afterwards`);
  }
  t.end();
});
