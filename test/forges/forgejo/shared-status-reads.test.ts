/** The shared reads of a commit's statuses: which answers a read gives (a table), then coalescing, keeping and staleness over a scripted port. */
import t from 'tap';
import { answerFrom, SHARED_READ_MS, SharedStatusReads, type ReadAnswer } from '../../../src/forges/forgejo/shared-status-reads.js';
import type { ForgejoStatus, RecentStatuses, RepoRef } from '../../../src/forges/forgejo/forgejo-types.js';

const SHA = 'a'.repeat(40);
const repo: RepoRef = { owner: 'acme', repo: 'web' };
const EU = 'deploy/staging (eu-1)';
const US = 'deploy/staging (us-2)';
const status = (id: number, context: string, state: ForgejoStatus['status'] = 'success'): ForgejoStatus => ({
  id,
  status: state,
  context,
  description: `#${id}`,
  target_url: '',
  created_at: '2026-12-06T10:00:00Z',
});
const page = (complete: boolean, ...statuses: ForgejoStatus[]): RecentStatuses => ({ statuses, complete });

t.test('answerFrom: what one read says about a context', (t) => {
  const cases: Array<[string, RecentStatuses, string[], string, ReadAnswer]> = [
    ['a commit without statuses: none', page(true), [], EU, { kind: 'none' }],
    [
      'the newest of the context (newest first)',
      page(true, status(3, EU), status(1, EU, 'pending')),
      [],
      EU,
      { kind: 'found', status: status(3, EU) },
    ],
    ["another context's status says nothing of this one", page(true, status(2, US)), [], EU, { kind: 'none' }],
    ['compared trimmed, as Forgejo stores it', page(true, status(2, EU)), [], ` ${EU} `, { kind: 'found', status: status(2, EU) }],
    ['not on an incomplete page: older statuses may hold it', page(false, status(9, US)), [], EU, { kind: 'again', why: 'beyond' }],
    ['on an incomplete page: its newest is there', page(false, status(9, EU)), [], EU, { kind: 'found', status: status(9, EU) }],
    ['written since the read was asked: read again', page(true), [EU], EU, { kind: 'again', why: 'written' }],
    ['written since, found in the read all the same: read again', page(true, status(1, EU)), [EU], EU, { kind: 'again', why: 'written' }],
    [
      "another context written since: this one's answer stands",
      page(true, status(1, EU)),
      [US],
      EU,
      { kind: 'found', status: status(1, EU) },
    ],
  ];
  for (const [name, read, written, context, want] of cases) t.same(answerFrom(read, new Set(written), context), want, name);
  t.end();
});

/** A port whose reads the test answers by hand; every call recorded. */
function scripted() {
  const calls: string[] = [];
  const pending: Array<{ resolve: (p: RecentStatuses) => void; reject: (e: Error) => void }> = [];
  const port = {
    recentStatuses(_r: RepoRef, sha: string) {
      calls.push(`recent ${sha.slice(0, 1)}`);
      return new Promise<RecentStatuses>((resolve, reject) => pending.push({ resolve, reject }));
    },
    latestStatus(_r: RepoRef, _sha: string, context: string) {
      calls.push(`latest ${context}`);
      return Promise.resolve(status(99, context));
    },
  };
  const answer = (p: RecentStatuses) => pending.shift()!.resolve(p);
  const fail = (e: Error) => pending.shift()!.reject(e);
  return { port, calls, answer, fail };
}

const tick = () => new Promise((r) => setImmediate(r));

t.test('concurrent look-ups of one commit wait for one read; each context gets its own answer', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  const contexts = [EU, US, 'deploy/production (eu-1)', 'deploy/production (us-2)'];
  const asked = contexts.map((c) => reads.latest(repo, SHA, c));
  await tick();
  t.same(s.calls, ['recent a'], 'one read for four contexts');
  s.answer(page(true, status(2, US)));
  t.same(await Promise.all(asked), [null, status(2, US), null, null]);
  t.same(reads.counts(), { reads: 1, shared: 3, again: 0 });
  t.same(
    await reads.latest({ owner: 'ACME', repo: 'Web' }, SHA.toUpperCase(), EU),
    null,
    'the same commit in other letter cases: the same read',
  );
  t.same(s.calls, ['recent a']);
});

t.test('a read answers the later contexts of its commit for SHARED_READ_MS, then a new read is asked', async (t) => {
  const s = scripted();
  let now = 0;
  const reads = new SharedStatusReads(s.port, () => now);
  const first = reads.latest(repo, SHA, EU);
  s.answer(page(true));
  t.equal(await first, null);
  now = SHARED_READ_MS - 1;
  t.equal(await reads.latest(repo, SHA, US), null, 'later, within the time: the same read');
  t.same(s.calls, ['recent a']);
  now = SHARED_READ_MS;
  const late = reads.latest(repo, SHA, 'deploy/production (eu-1)');
  await tick();
  t.same(s.calls, ['recent a', 'recent a'], 'past it: read again');
  s.answer(page(true));
  t.equal(await late, null);
  const other = reads.latest(repo, 'b'.repeat(40), EU);
  await tick();
  t.same(s.calls.at(-1), 'recent b', 'another commit has its own read');
  s.answer(page(true));
  await other;
});

t.test('a context the bridge wrote after the read was asked, or was writing then, reads on its own', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  const done = reads.writing(repo, SHA, US); // a POST to US on the way
  const first = reads.latest(repo, SHA, EU);
  await tick();
  reads.writing(repo, SHA, `${EU} `)(); // then a POST to EU, answered
  done();
  s.answer(page(true));
  t.same(await first, status(99, EU), 'EU: written since it asked, so its own read');
  t.same(await reads.latest(repo, SHA, US), status(99, US), 'US: being written when the read was asked');
  t.equal(await reads.latest(repo, SHA, 'deploy/production (eu-1)'), null, 'a context nobody wrote: the shared answer');
  t.same(s.calls, ['recent a', `latest ${EU}`, `latest ${US}`]);
  t.same(reads.counts(), { reads: 1, shared: 1, again: 2 });
});

t.test('a write finished before the read was asked is in it: no second read', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  reads.writing(repo, SHA, EU)();
  const asked = reads.latest(repo, SHA, EU);
  s.answer(page(true, status(1, EU, 'pending')));
  t.same(await asked, status(1, EU, 'pending'));
  t.same(s.calls, ['recent a']);
});

t.test('a context beyond an incomplete page reads on its own', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  const [eu, us] = [reads.latest(repo, SHA, EU), reads.latest(repo, SHA, US)];
  s.answer(page(false, status(60, US)));
  t.same(await us, status(60, US), 'on the page: answered');
  t.same(await eu, status(99, EU), 'not on it: its own read, through every page');
  t.same(s.calls, ['recent a', `latest ${EU}`]);
});

t.test('a failed read fails everyone waiting on it and is not kept', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  const asked = [reads.latest(repo, SHA, EU), reads.latest(repo, SHA, US)];
  await tick();
  s.fail(new Error('503'));
  for (const a of asked) await t.rejects(a, /503/);
  const again = reads.latest(repo, SHA, EU);
  await tick();
  t.same(s.calls, ['recent a', 'recent a'], 'the next look-up asks again');
  s.answer(page(true));
  t.equal(await again, null);
});

t.test('at most MAX_SHARED_READS commits are kept: the oldest leaves first', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0, { max: 2 });
  for (const c of ['a', 'b', 'c']) {
    const p = reads.latest(repo, c.repeat(40), EU);
    s.answer(page(true));
    await p;
  }
  const [b, a] = [reads.latest(repo, 'b'.repeat(40), US), reads.latest(repo, 'a'.repeat(40), US)];
  await tick();
  t.same(s.calls, ['recent a', 'recent b', 'recent c', 'recent a'], 'b still kept, a dropped');
  s.answer(page(true));
  await Promise.all([a, b]);
});
