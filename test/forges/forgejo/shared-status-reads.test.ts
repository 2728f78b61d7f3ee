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
  const cases: Array<[string, RecentStatuses, boolean, string, ReadAnswer]> = [
    ['a commit without statuses: none', page(true), false, EU, { kind: 'none' }],
    [
      'the newest of the context (newest first)',
      page(true, status(3, EU), status(1, EU, 'pending')),
      false,
      EU,
      { kind: 'found', status: status(3, EU) },
    ],
    ["another context's status says nothing of this one", page(true, status(2, US)), false, EU, { kind: 'none' }],
    ['compared trimmed, as Forgejo stores it', page(true, status(2, EU)), false, ` ${EU} `, { kind: 'found', status: status(2, EU) }],
    ['not on an incomplete page: older statuses may hold it', page(false, status(9, US)), false, EU, { kind: 'again', why: 'beyond' }],
    ['on an incomplete page: its newest is there', page(false, status(9, EU)), false, EU, { kind: 'found', status: status(9, EU) }],
    ['the commit written while the read was on the way: read again', page(true), true, EU, { kind: 'again', why: 'written' }],
    ['written, the context found all the same: read again', page(true, status(1, EU)), true, EU, { kind: 'again', why: 'written' }],
  ];
  for (const [name, read, written, context, want] of cases) t.same(answerFrom(read, context, written), want, name);
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

t.test('a write to the commit ends its read: later look-ups read anew (shared), those waiting on it read on their own', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  const first = reads.latest(repo, SHA, EU);
  s.answer(page(true));
  t.equal(await first, null);
  const done = reads.writing(repo, SHA, EU); // EU's status on the way
  const [us, prod] = [reads.latest(repo, SHA, US), reads.latest(repo, SHA, 'deploy/production (eu-1)')];
  await tick();
  t.same(s.calls, ['recent a', 'recent a'], 'written since: a new read, shared by the two');
  s.answer(page(true));
  t.same(await Promise.all([us, prod]), [status(99, US), status(99, 'deploy/production (eu-1)')], 'EU was being written as it was asked');
  t.same(s.calls.slice(2), [`latest ${US}`, 'latest deploy/production (eu-1)']);
  done();
  const later = reads.latest(repo, SHA, 'deploy/production (us-2)');
  const during = reads.latest(repo, SHA, 'deploy/dev (us-2)');
  await tick();
  reads.writing(repo, SHA, US)(); // written while this read is on the way
  s.answer(page(true));
  t.same(await later, status(99, 'deploy/production (us-2)'));
  t.same(await during, status(99, 'deploy/dev (us-2)'));
  t.same(reads.counts(), { reads: 3, shared: 0, again: 4 });
});

t.test('lookAhead: the contexts of a commit asked together, before any write; each publish takes its answer', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  const at = (sha: string, context: string) => ({ ...repo, sha, context });
  const B = 'b'.repeat(40);
  const ahead = reads.lookAhead([...[EU, US, 'deploy/production (eu-1)'].map((c) => at(SHA, c)), at(B, EU)]);
  await tick();
  t.same(s.calls, ['recent a'], "one read for A's three contexts; B's one context is left to its publish");
  s.answer(page(true, status(4, US)));
  await ahead;
  reads.writing(repo, SHA, EU)(); // EU published: its taken answer is spent
  t.same(await reads.latest(repo, SHA, US), status(4, US), 'taken ahead: no read, although the commit was written since');
  t.equal(await reads.latest(repo, SHA, 'deploy/production (eu-1)'), null);
  t.same(s.calls, ['recent a']);
  const eu = reads.latest(repo, SHA, EU);
  await tick();
  t.same(s.calls, ['recent a', 'recent a'], 'each answer is taken once: EU asks again');
  s.answer(page(true, status(5, EU)));
  t.same(await eu, status(5, EU));
});

t.test('lookAhead leaves a failed read to the publishes, and taken answers expire', async (t) => {
  const s = scripted();
  let now = 0;
  const reads = new SharedStatusReads(s.port, () => now);
  const both = [EU, US].map((context) => ({ ...repo, sha: SHA, context }));
  const ahead = reads.lookAhead(both);
  await tick();
  s.fail(new Error('503'));
  await ahead;
  const eu = reads.latest(repo, SHA, EU);
  await tick();
  t.same(s.calls, ['recent a', 'recent a'], 'nothing was taken: the publish reads');
  s.answer(page(true));
  t.equal(await eu, null);
  now = SHARED_READ_MS; // EU's read has expired too
  const again = reads.lookAhead(both);
  await tick();
  s.answer(page(true));
  await again;
  now = 2 * SHARED_READ_MS;
  const late = reads.latest(repo, SHA, US);
  await tick();
  t.same(s.calls.length, 4, 'an answer taken too long ago is not used');
  s.answer(page(true));
  t.equal(await late, null);
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

t.test('lookAhead keeps nothing of a commit the bridge wrote to while it was asked', async (t) => {
  const s = scripted();
  const reads = new SharedStatusReads(s.port, () => 0);
  const ahead = reads.lookAhead([EU, US].map((context) => ({ ...repo, sha: SHA, context })));
  await tick();
  reads.writing(repo, SHA, 'deploy/production (eu-1)')(); // another Flux object's status on the commit
  s.answer(page(true));
  await ahead;
  t.same(s.calls, ['recent a', `latest ${EU}`, `latest ${US}`], 'the read was overtaken: each read on its own');
  const eu = reads.latest(repo, SHA, EU);
  await tick();
  t.same(s.calls.at(-1), 'recent a', 'and those answers were not kept: the publish reads');
  s.answer(page(true));
  t.equal(await eu, null);
});
