/** Rows without a purpose go by age (issue 22, item 2); everything the bridge still needs stays. */
import t from 'tap';
import { DeploymentStore, type Origin } from '../../src/store/deployment-store.js';
import { ImageCache, USED_AT_GRANULARITY_MS } from '../../src/store/image-cache.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { DEFAULT_RETENTION, composeRetention, pruneStorage, type PruneStep } from '../../src/store/retention.js';
import { SourceStore } from '../../src/store/source-store.js';
import type { Identity } from '../../src/lifecycle/identity.js';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import { openDatabase } from '../harness/database.js';

const DAY = 24 * 60 * 60_000;
const T0 = Date.UTC(2026, 0, 1);

function stores() {
  const db = openDatabase(':memory:');
  let clock = T0;
  const now = () => clock;
  return {
    db,
    at: (ms: number) => {
      clock = ms;
    },
    now,
    sources: new SourceStore(db),
    queue: new QueueStore(db),
    deployments: new DeploymentStore(db),
    images: new ImageCache(db, now),
    refusals: new RefusalStore(db),
    prune: () => pruneStorage(db, now(), []),
  };
}

const ref = (name: string): SourceRef => ({ kind: 'Kustomization', namespace: 'flux-system', name });
const gone = (name: string, at: number) => ({
  ...ref(name),
  phase: 'deleted',
  reason: 'NotFound',
  message: 'gone',
  revision: null,
  lastSeen: at,
});
const names = (s: SourceStore) => s.list().map((x) => x.name);

t.test('deleted sources: gone after a day unless queued or with a live deployment', (t) => {
  const s = stores();
  const origin = (name: string): Origin => ({
    source: ref(name),
    workload: { kind: 'Deployment', namespace: 'apps', name },
    container: 'app',
    image: 'r.example/app:1',
  });
  for (const n of ['old', 'queued', 'live', 'fresh']) s.sources.record(gone(n, n === 'fresh' ? T0 + DAY : T0));
  s.sources.recordError(ref('errored'), 'boom', T0);
  s.sources.record({ ...gone('ready', T0), phase: 'ready' });
  s.sources.replaceSkips(ref('old'), [{ ...origin('old'), code: 'no_repository', reason: 'none' }], T0);
  s.queue.enqueue(ref('queued'), T0);
  const live: Identity = { forge: 'github', owner: 'a', repo: 'b', environment: 'e', sha: 'c'.repeat(40), deploymentName: 'live' };
  s.deployments.insertProvisional(live, origin('live'), T0);
  s.deployments.setDeploymentId(live, 1, 'success', T0);
  s.at(T0 + DAY + 1);
  const p = s.prune();
  t.same(names(s.sources).sort(), ['fresh', 'live', 'queued', 'ready']);
  t.equal(p.sources, 2, 'the old deleted one and the one that only ever failed');
  t.equal(p.skips, 1, 'its skips with it');
  t.same(s.sources.listSkips(), []);
  t.end();
});

t.test('registry answers: kept while read, gone 14 days after the last read', (t) => {
  const s = stores();
  const meta = (d: string) => ({ digest: `sha256:${d.repeat(64)}`, labels: { a: d } });
  s.images.putImage('linux/amd64', meta('a'), T0);
  s.images.putImage('linux/amd64', meta('b'), T0);
  s.images.putTag('r.example/app:1', meta('a').digest, T0);
  // `a` is read every day; `b` never again.
  for (let day = 1; day <= 20; day++) {
    s.at(T0 + day * DAY);
    t.ok(s.images.getImage(meta('a').digest, 'linux/amd64'));
    s.prune();
  }
  t.ok(s.images.getImage(meta('a').digest, 'linux/amd64'), 'read: kept');
  t.equal(s.images.getImage(meta('b').digest, 'linux/amd64'), undefined, 'unread for 14 days: gone');
  t.equal(s.images.getTag('r.example/app:1'), undefined, 'a tag not checked for 14 days: gone');
  t.ok(USED_AT_GRANULARITY_MS < DEFAULT_RETENTION.unusedImageMs);
  t.end();
});

t.test('refusals: kept until a day past their retry time', (t) => {
  const s = stores();
  const refusal = (key: string, retryAt: number) =>
    s.refusals.record({ forge: 'github', key, code: 'not_found', reason: 'no such repo', status: 404, retryAt }, T0);
  refusal('due-long-ago', T0 + DAY);
  refusal('due-later', T0 + 10 * DAY);
  s.at(T0 + 2 * DAY + 1);
  t.equal(s.prune().forge_refusals, 1);
  t.same(
    s.refusals.list().map((r) => r.key),
    ['due-later'],
  );
  t.end();
});

t.test('deployment history: gone and replaced failures go after 14 days, at most 20 per lineage; live rows stay', (t) => {
  const s = stores();
  const origin: Origin = {
    source: ref('apps'),
    workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
    container: 'app',
    image: 'r.example/web:1',
  };
  const id = (n: number, name = 'web'): Identity => ({
    forge: 'github',
    owner: 'acme',
    repo: 'web',
    environment: 'prod',
    sha: n.toString(16).padStart(40, '0'),
    deploymentName: name,
  });
  const put = (i: Identity, state: 'gone' | 'failure' | 'success', at: number) => {
    s.deployments.insertProvisional(i, origin, at);
    s.deployments.setDeploymentId(i, Number.parseInt(i.sha, 16), state, at);
  };
  // 30 superseded commits an hour apart, then the live one.
  for (let n = 1; n <= 30; n++) put(id(n), 'gone', T0 + n * 3600_000);
  put(id(31), 'success', T0 + 31 * 3600_000);
  // A failure that is the workload's newest row stays (nothing replaced it); another lineage's failure too.
  put(id(1, 'lonely'), 'failure', T0);
  t.equal(s.prune().deployments, 10, 'beyond 20 per lineage');
  t.equal(s.deployments.lineage(id(31)).length, 20);
  s.at(T0 + 16 * DAY);
  s.prune();
  const left = s.deployments.list().map((r) => `${r.deploymentName}:${r.state}`);
  t.same(left.sort(), ['lonely:failure', 'web:success'], 'older than 14 days: only what is live or the newest of its workload');
  t.end();
});

t.test("the owners' steps run after the core tables, in their order, in the same transaction", (t) => {
  const s = stores();
  s.db.exec(`CREATE TABLE a (x); CREATE TABLE b (x); INSERT INTO a VALUES (1), (2);`);
  // b copies what a holds when its step runs: after a's delete.
  const steps: PruneStep[] = [
    { table: 'a', prune: (db, now) => db.prepare(`DELETE FROM a WHERE x < ?`).run(now - T0).changes },
    { table: 'b', prune: (db) => db.prepare(`INSERT INTO b SELECT x FROM a`).run().changes },
  ];
  t.same(Object.entries(pruneStorage(s.db, T0 + 2, steps)), [
    ['sources', 0],
    ['skips', 0],
    ['image_labels', 0],
    ['image_tags', 0],
    ['forge_refusals', 0],
    ['deployments', 0],
    ['a', 1],
    ['b', 1],
  ]);
  const failing: PruneStep[] = [
    steps[0]!,
    {
      table: 'c',
      prune: () => {
        throw new Error('boom');
      },
    },
  ];
  t.throws(() => pruneStorage(s.db, T0 + 3, failing), /boom/);
  t.equal((s.db.prepare(`SELECT count(*) AS n FROM a`).get() as { n: number }).n, 1, 'a failing step undoes the whole prune');
  t.end();
});

t.test('composeRetention keeps the order and refuses a table pruned twice or a core table', (t) => {
  const step = (table: string): PruneStep => ({ table, prune: () => 0 });
  const cases: Array<[string, string[][], string[] | RegExp]> = [
    ['in order across lists', [['b', 'a'], ['c']], ['b', 'a', 'c']],
    ['empty', [], []],
    ['twice in one list', [['a', 'a']], /retention: a is pruned by two steps/],
    ['twice across lists', [['a'], ['b', 'a']], /retention: a is pruned by two steps/],
    ['a core table', [['deployments']], /retention: deployments is a core table, pruned by the store/],
  ];
  for (const [name, lists, want] of cases) {
    const compose = () => composeRetention(...lists.map((l) => l.map(step))).map((s) => s.table);
    if (want instanceof RegExp) t.throws(compose, want, name);
    else t.same(compose(), want, name);
  }
  t.end();
});
