import t, { type Test } from 'tap';
import pino from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { CommentRefused, ListCapped } from '../../../src/forges/comments-port.js';
import { PullRequestComments } from '../../../src/features/comments/pr-comments.js';
import { CommentStore } from '../../../src/features/comments/comment-store.js';
import { type Db } from '../../../src/store/database.js';
import type { DeliveryState } from '../../../src/lifecycle/status-plan.js';
import { Crash, MemoryComments, type CrashPoint } from './memory-comments.js';
import { candidate, T0 } from '../../reconcile/plan-fixtures.js';
import { openDatabase } from '../../harness/database.js';

const PR = { number: 12, why: "from the Flux object's event.toolkit.fluxcd.io/change_request annotation" };
const log = pino({ level: 'silent' });

interface Rig {
  db: Db;
  forge: MemoryComments;
  clock: { now: number };
  timers: Array<{ at: number; fn: () => void }>;
  keeper: PullRequestComments;
  /** A new process on the same database (a restart). */
  restart(): void;
  publish(name: string, state: DeliveryState, url?: string): boolean;
  /** Runs the timers due by now and waits for their writes. */
  tick(ms?: number): Promise<void>;
}

function rig(t: Test, o: { windowMs?: number; cluster?: string; db?: Db; forge?: MemoryComments; dryRun?: boolean } = {}): Rig {
  const db = o.db ?? openDatabase(':memory:');
  if (o.db === undefined) t.teardown(() => db.close());
  const forge = o.forge ?? new MemoryComments();
  forge.pullRequests.set(12, { open: true, locked: false });
  const clock = { now: T0 };
  const timers: Rig['timers'] = [];
  const make = () =>
    new PullRequestComments({
      store: new CommentStore(db),
      ports: { github: forge },
      cluster: o.cluster ?? 'prod',
      windowMs: o.windowMs ?? 5_000,
      dryRun: o.dryRun ?? false,
      metrics: createMetrics(),
      log,
      now: () => clock.now,
      later: (ms, fn) => timers.push({ at: clock.now + ms, fn }),
    });
  const r: Rig = {
    db,
    forge,
    clock,
    timers,
    keeper: make(),
    restart() {
      timers.length = 0;
      r.keeper = make();
    },
    publish(name, state, url = `https://${name}.pr-12.example.com/`) {
      const c = candidate(name);
      return r.keeper.published({ ...c.target, repo: 'web', environmentUrl: url }, PR, state);
    },
    async tick(ms = 0) {
      clock.now += ms;
      r.keeper.settle();
      for (;;) {
        const due = timers.filter((x) => x.at <= clock.now);
        if (due.length === 0) break;
        for (const d of due) timers.splice(timers.indexOf(d), 1);
        for (const d of due) d.fn();
        await r.keeper.idle();
        await new Promise((res) => setImmediate(res));
      }
    },
  };
  return r;
}

t.test('one comment, edited as rows change, never written when unchanged', async (t) => {
  const r = rig(t);
  t.ok(r.publish('web', 'in_progress'));
  await r.tick();
  t.equal(r.forge.comments.length, 1, 'one comment created');
  t.match(r.forge.bodies(12)[0], /rolling out/);
  t.notMatch(r.forge.bodies(12)[0], /https:\/\/web/, 'no link while rolling out');
  r.publish('web', 'success');
  await r.tick(5_000);
  t.equal(r.forge.comments.length, 1);
  t.match(r.forge.bodies(12)[0], /\| live \|/);
  t.match(r.forge.bodies(12)[0], /\(https:\/\/web\.pr-12\.example\.com\/\)/, 'the link while live');
  const writes = r.forge.writes;
  for (let i = 0; i < 20; i++) {
    t.notOk(r.publish('web', 'success'), 'the same row changes nothing');
    await r.tick(10_000);
  }
  t.equal(r.forge.writes, writes, '20 repeated publishes: no write');
  t.equal(r.forge.reads, 1, 'and no read either (only the pull request check before the create)');
});

t.test('many workloads at once: at most one edit per window', async (t) => {
  const r = rig(t);
  r.publish('web', 'in_progress');
  await r.tick();
  t.equal(r.forge.writes, 1);
  for (const name of ['api', 'worker', 'cron', 'ui']) {
    r.publish(name, 'in_progress');
    await r.tick(500);
  }
  t.equal(r.forge.writes, 1, 'inside the window: nothing written yet');
  await r.tick(5_000);
  t.equal(r.forge.writes, 2, 'one edit carries every change');
  t.equal(
    r.forge
      .bodies(12)[0]!
      .split('\n')
      .filter((l) => l.includes('rolling out')).length,
    5,
  );
});

t.test('gone: the comment is edited to say so, without the link, and not deleted', async (t) => {
  const r = rig(t, { windowMs: 0 });
  r.publish('web', 'success');
  await r.tick();
  const c = candidate('web');
  r.keeper.retired({ ...c.target, repo: 'web' } as never);
  await r.tick(1);
  t.equal(r.forge.comments.length, 1);
  t.match(r.forge.bodies(12)[0], /The preview is gone/);
  t.notMatch(r.forge.bodies(12)[0], /https:\/\/web/);
});

t.test('a closed pull request gets no new comment, but its cleanup edit is still made', async (t) => {
  const r = rig(t, { windowMs: 0 });
  r.forge.pullRequests.set(12, { open: false, locked: false });
  r.publish('web', 'success');
  await r.tick();
  t.equal(r.forge.comments.length, 0, 'closed: no comment');
  t.match(new CommentStore(r.db).all()[0], { skipReason: 'pull request #12 is closed: no new comment', dirty: false });

  const open = rig(t, { windowMs: 0 });
  open.publish('web', 'success');
  await open.tick();
  open.forge.pullRequests.set(12, { open: false, locked: false });
  open.keeper.retired({ ...candidate('web').target, repo: 'web' } as never);
  await open.tick(1);
  t.match(open.forge.bodies(12)[0], /The preview is gone/, 'closed after the comment: the gone edit is made');
});

t.test('missing, locked or forbidden: a skip with its reason, not a retry loop', async (t) => {
  const r = rig(t, { windowMs: 0 });
  r.forge.pullRequests.delete(12);
  r.publish('web', 'success');
  await r.tick();
  t.match(new CommentStore(r.db).all()[0], { skipReason: 'pull request #12 does not exist', dirty: false });
  await r.tick(60_000);
  t.equal(r.forge.reads, 1, 'not asked again until a row changes');

  const locked = rig(t, { windowMs: 0 });
  locked.forge.pullRequests.set(12, { open: true, locked: true });
  locked.publish('web', 'success');
  await locked.tick();
  t.match(new CommentStore(locked.db).all()[0], { skipReason: 'pull request #12 is locked' });

  const forbidden = rig(t, { windowMs: 0 });
  forbidden.forge.refuse = new CommentRefused('403 Resource not accessible by integration: the App needs pull_requests: write');
  forbidden.publish('web', 'success');
  await forbidden.tick();
  t.match(new CommentStore(forbidden.db).all()[0], { skipReason: /pull_requests: write/ });
  t.equal(forbidden.forge.comments.length, 0);
});

for (const point of ['before-create', 'after-create', 'before-edit', 'after-edit'] as CrashPoint[]) {
  t.test(`a restart ${point}: no second comment, and the comment ends current`, async (t) => {
    const r = rig(t, { windowMs: 0 });
    r.publish('web', 'in_progress');
    if (point.endsWith('edit')) {
      await r.tick();
      r.publish('web', 'success');
    }
    r.forge.crashAt = point;
    await r.tick(1);
    t.equal(r.forge.crashAt, undefined, 'the crash point was reached');
    r.restart();
    await r.tick(1);
    t.equal(r.forge.comments.length, 1, 'exactly one comment');
    t.match(r.forge.bodies(12)[0], point.endsWith('edit') ? /\| live \|/ : /rolling out/);
    const entry = new CommentStore(r.db).all()[0]!;
    t.match(entry, { commentId: r.forge.comments[0]!.id, pending: false, dirty: false });
  });
}

t.test('a crash after the create: found among the bridge own comments only, by its cluster marker', async (t) => {
  const r = rig(t, { windowMs: 0 });
  // Someone quoting the marker, and another cluster's bridge: neither is this cluster's comment.
  r.forge.comments.push({ id: 1, pr: 12, author: 'mallory', body: '<!-- github-deployment-bridge:cluster=prod -->\nhi' });
  r.forge.comments.push({ id: 2, pr: 12, author: 'bridge[bot]', body: '<!-- github-deployment-bridge:cluster=staging -->\n' });
  r.publish('web', 'success');
  r.forge.crashAt = 'after-create';
  await r.tick();
  r.restart();
  await r.tick(1);
  t.equal(r.forge.comments.length, 3, 'no fourth comment');
  t.equal(r.forge.comments[0]!.body, '<!-- github-deployment-bridge:cluster=prod -->\nhi', "mallory's comment untouched");
  t.equal(new CommentStore(r.db).all()[0]!.commentId, 100);
});

t.test('two clusters: two comments on the same pull request', async (t) => {
  const forge = new MemoryComments();
  const db1 = openDatabase(':memory:');
  const db2 = openDatabase(':memory:');
  t.teardown(() => (db1.close(), db2.close()));
  const a = rig(t, { cluster: 'eu', db: db1, forge, windowMs: 0 });
  const b = rig(t, { cluster: 'us', db: db2, forge, windowMs: 0 });
  a.publish('web', 'success');
  b.publish('web', 'success');
  await a.tick();
  await b.tick();
  a.publish('web', 'failure');
  await a.tick(1);
  t.equal(forge.comments.length, 2);
  t.match(forge.bodies(12)[0], /cluster=eu[\s\S]*failed/);
  t.match(forge.bodies(12)[1], /cluster=us[\s\S]*live/);
});

t.test("a remote Flux object's rows go on its cluster's comment, beside the bridge's own", async (t) => {
  const r = rig(t, { cluster: 'hub', windowMs: 0 });
  const local = candidate('web').target;
  r.keeper.published({ ...local, repo: 'web', environmentUrl: 'https://web.pr-12.example.com/' }, PR, 'success');
  r.keeper.published(
    { ...local, repo: 'web', spoke: 'prod-eu', cluster: 'prod-eu', environmentUrl: 'https://eu.example.com/' },
    PR,
    'success',
  );
  await r.tick();
  t.equal(r.forge.comments.length, 2, "one comment per cluster: the hub's and the spoke's");
  t.match(r.forge.bodies(12).join('\n'), /cluster=hub[\s\S]*cluster=prod-eu/);
});

t.test('a transient failure is tried again later', async (t) => {
  const r = rig(t, { windowMs: 0 });
  r.forge.crashAt = 'before-create';
  r.publish('web', 'success');
  await r.tick();
  t.equal(r.forge.comments.length, 0);
  t.ok(r.timers.length > 0, 'a retry is scheduled');
  await r.tick(30_000);
  t.equal(r.forge.comments.length, 1);
  t.ok(new Crash('x') instanceof Error);
});

t.test('DRY_RUN: nothing is sent, not even the read before the create', async (t) => {
  const r = rig(t, { windowMs: 0, dryRun: true });
  r.publish('web', 'success');
  await r.tick();
  r.publish('web', 'success');
  await r.tick(1);
  t.equal(r.forge.writes + r.forge.reads, 0);
  t.match(new CommentStore(r.db).all()[0], { commentId: null, pending: false });
});

t.test("a row whose commit is not its pull request's is left out, with its reason; checked once per commit", async (t) => {
  const r = rig(t, { windowMs: 0 });
  const foreign = candidate('web').target.sha;
  r.forge.foreign.set(12, new Set([foreign]));
  r.publish('web', 'success');
  await r.tick();
  t.equal(r.forge.comments.length, 0, 'no comment for a commit of another pull request');
  const store = new CommentStore(r.db);
  t.match(store.all()[0], { skipReason: /not on pull request #12/, dirty: false });
  t.match(store.rows(store.all()[0]!)[0], { refusal: /not on pull request #12/ });
  // Another workload of the pull request, at its own commit: the comment shows it alone.
  r.publish('api', 'success');
  await r.tick(1);
  t.equal(r.forge.comments.length, 1);
  t.match(r.forge.bodies(12)[0], /\| api \|/);
  t.notMatch(r.forge.bodies(12)[0], /\| web \|/, 'the foreign row is not shown');
  t.equal(r.forge.checks, 2, 'each commit checked once');
  r.publish('api', 'failure');
  await r.tick(1);
  t.equal(r.forge.checks, 2, 'a checked commit is not asked again');
});

t.test('a workload that moves to another pull request: its row on the first one ends', async (t) => {
  const r = rig(t, { windowMs: 0 });
  r.forge.pullRequests.set(13, { open: true, locked: false });
  r.publish('web', 'success');
  await r.tick();
  const c = candidate('web');
  t.ok(
    r.keeper.published(
      { ...c.target, repo: 'web', environmentUrl: 'https://web.pr-13.example.com/' },
      { number: 13, why: 'moved' },
      'success',
    ),
  );
  await r.tick(1);
  t.match(r.forge.bodies(13)[0], /\| web \|.*\| live \|/, 'on the new pull request: live');
  t.match(r.forge.bodies(12)[0], /\| web \|.*\| gone \|/, 'on the old one: ended');
  t.notMatch(r.forge.bodies(12)[0], /https:\/\/web/, 'without its link');
});

t.test('a comment list past its cap: a clear skip, counted, and no second comment', async (t) => {
  const r = rig(t, { windowMs: 0 });
  r.forge.crashAt = 'after-create';
  r.publish('web', 'success');
  await r.tick();
  r.forge.listOwn = () => Promise.reject(new ListCapped('list the comments of #12 in acme/web', { pages: 10, items: 1000 }));
  r.restart();
  await r.tick(30_000);
  t.equal(r.forge.comments.length, 1, 'no second comment');
  t.match(new CommentStore(r.db).all()[0], { skipReason: /stopped after 10 page\(s\)/ });
});
