/**
 * The publisher over the Forgejo simulator: the contexts of one commit new to the store cost one read of its
 * statuses, published one after another or at once; a context the bridge wrote since, or one beyond the read's
 * page, reads again, and nothing is ever sent twice or missed.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { CommitStatusPublisher, type CommitStatusTarget } from '../../../src/forges/forgejo/commit-status-publisher.js';
import { ForgejoClient } from '../../../src/forges/forgejo/forgejo-client.js';
import { startForgejoSimulator, type ForgejoSimulator } from '../../harness/forgejo-sim.js';
import { MemoryStatusStore } from '../../harness/memory-status-store.js';

const TOKEN = 'forgejo_shared_read_test';
const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);
const log = pino({ level: 'silent' });
/** Four contexts of one commit: two environments in two clusters. */
const CONTEXTS = ['deploy/staging (eu-1)', 'deploy/staging (us-2)', 'deploy/production (eu-1)', 'deploy/production (us-2)'];
const target = (sha: string, context: string): CommitStatusTarget => ({ owner: 'acme', repo: 'shop', sha, context });

async function setup(t: Test) {
  const sim = await startForgejoSimulator({ tokens: [TOKEN], repos: ['acme/shop'], commits: { 'acme/shop': [SHA_A, SHA_B] } });
  t.teardown(() => sim.close());
  const port = new ForgejoClient({ apiBase: sim.apiUrl, token: TOKEN, userAgent: 'gdb-test' });
  const publisher = (store = new MemoryStatusStore()) => new CommitStatusPublisher({ forge: port, store, log, now: () => 1_000 });
  return { sim, port, publisher };
}

const readsOf = (sim: ForgejoSimulator, sha: string) =>
  sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/statuses/${sha}`)).length;
const trail = (sim: ForgejoSimulator, sha: string, context: string) =>
  sim
    .statuses('acme', 'shop', sha)
    .filter((s) => s.context === context)
    .map((s) => s.state);

t.test(
  'four new contexts of a commit: one read, looked up ahead or published at once; one after another, each write ends the read',
  async (t) => {
    const { sim, publisher } = await setup(t);
    const p = publisher();
    await p.lookAhead(CONTEXTS.map((c) => target(SHA_A, c)));
    for (const c of CONTEXTS)
      t.same(await p.publish(target(SHA_A, c), 'in_progress', 'Progressing'), { sent: ['in_progress'], read: true });
    t.equal(readsOf(sim, SHA_A), 1, 'A: looked up ahead, then published one after another: one read');
    const together = await Promise.all(CONTEXTS.map((c) => p.publish(target(SHA_B, c), 'success', 'Ready')));
    t.same(
      together.map((r) => r.sent),
      CONTEXTS.map(() => ['success']),
    );
    t.equal(readsOf(sim, SHA_B), 1, 'B: published at once: one read');
    for (const c of CONTEXTS) t.same([trail(sim, SHA_A, c), trail(sim, SHA_B, c)], [['pending'], ['success']], c);
    const q = publisher();
    for (const c of CONTEXTS) await q.publish(target(SHA_A, c), 'success', 'Ready');
    t.equal(readsOf(sim, SHA_A), 1 + 4, 'a lost store, one after another without a look-ahead: each write to A ends the read');
    t.same(q.reads.counts(), { reads: 4, shared: 0, again: 0 });
    t.same(sim.violations, []);
  },
);

t.test('a look-ahead asks only for the contexts a publish would read: none new, no request', async (t) => {
  const { sim, publisher } = await setup(t);
  const p = publisher();
  for (const c of CONTEXTS) await p.publish(target(SHA_A, c), 'success', 'Ready');
  const before = sim.requests.length;
  await p.lookAhead(CONTEXTS.map((c) => target(SHA_A, c)));
  t.equal(sim.requests.length, before);
});

t.test('a lost store: the shared read adopts what each context shows, nothing is sent twice', async (t) => {
  const { sim, publisher } = await setup(t);
  const before = publisher();
  await before.publish(target(SHA_A, CONTEXTS[0]!), 'success', 'Ready');
  await before.publish(target(SHA_A, CONTEXTS[1]!), 'in_progress', 'Progressing');
  const after = publisher();
  const start = readsOf(sim, SHA_A);
  const sent = await Promise.all(CONTEXTS.map((c) => after.publish(target(SHA_A, c), 'success', 'Ready')));
  t.same(
    sent.map((r) => r.sent),
    [[], ['success'], ['success'], ['success']],
  );
  t.equal(readsOf(sim, SHA_A) - start, 1, 'one read');
  t.same(trail(sim, SHA_A, CONTEXTS[0]!), ['success'], 'never sent twice');
  t.same(trail(sim, SHA_A, CONTEXTS[1]!), ['pending', 'success']);
});

t.test('a status whose answer was lost (502) is settled by a read asked after it, shared with the next context', async (t) => {
  const { sim, publisher } = await setup(t);
  const store = new MemoryStatusStore();
  const p = publisher(store);
  sim.inject({ method: 'POST', afterWork: 502 });
  await t.rejects(p.publish(target(SHA_A, CONTEXTS[0]!), 'success', 'Ready'), { name: 'ForgeError', status: 502 });
  t.match(store.get(target(SHA_A, CONTEXTS[0]!)), { pendingPhase: 'success' });
  const start = readsOf(sim, SHA_A);
  t.same(
    await p.publish(target(SHA_A, CONTEXTS[0]!), 'success', 'Ready'),
    { sent: [], read: true },
    'the first read predates the write: read anew',
  );
  t.same(await p.publish(target(SHA_A, CONTEXTS[1]!), 'success', 'Ready'), { sent: ['success'], read: true });
  t.equal(readsOf(sim, SHA_A) - start, 1, 'one read for both');
  t.same(trail(sim, SHA_A, CONTEXTS[0]!), ['success'], 'not sent twice');
  t.same(p.reads.counts(), { reads: 2, shared: 1, again: 0 });
});

t.test("a commit with a full page of other checks: a context not on it reads on its own, through Forgejo's pages", async (t) => {
  const { sim, port, publisher } = await setup(t);
  await publisher().publish(target(SHA_A, CONTEXTS[0]!), 'success', 'Ready');
  for (let i = 0; i < 60; i++)
    await port.createStatus({ owner: 'acme', repo: 'shop' }, SHA_A, { state: 'success', context: `ci/${i}`, description: 'ok' });
  const p = publisher();
  const start = readsOf(sim, SHA_A);
  t.same(await p.publish(target(SHA_A, CONTEXTS[0]!), 'success', 'Ready'), { sent: [], read: true }, 'found on page 2: not sent again');
  t.same(await p.publish(target(SHA_A, CONTEXTS[1]!), 'success', 'Ready'), { sent: ['success'], read: true }, 'none on any page: sent');
  t.equal(readsOf(sim, SHA_A) - start, 1 + 2 + 2, 'the shared page, then two pages for each context');
  t.same(p.reads.counts(), { reads: 1, shared: 0, again: 2 });
  t.same(trail(sim, SHA_A, CONTEXTS[0]!), ['success']);
  t.same(sim.violations, []);
});
