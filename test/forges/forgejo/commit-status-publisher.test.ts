import t, { type Test } from 'tap';
import { pino } from 'pino';
import { phaseOf, type ContextPhase, type ForgeDesired, type SentPhase } from '../../../src/forges/forgejo/commit-status-plan.js';
import {
  CommitStatusPublisher,
  type CommitStatusRecord,
  type CommitStatusTarget,
} from '../../../src/forges/forgejo/commit-status-publisher.js';
import { ForgejoClient } from '../../../src/forges/forgejo/forgejo-client.js';
import type { CommitStatusPort } from '../../../src/forges/forgejo/forgejo-types.js';
import { startForgejoSimulator, type ForgejoSimulator } from '../../harness/forgejo-sim.js';
import { MemoryStatusStore } from '../../harness/memory-status-store.js';

const TOKEN = 'forgejo_publisher_test';
const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);
const CONTEXT = 'deploy/preview-pr-42 (eu-1)';
const URL_A = 'https://pr-42.preview.example.com/';
const log = pino({ level: 'silent' });
const target = (sha: string, context = CONTEXT): CommitStatusTarget => ({ owner: 'acme', repo: 'shop', sha, context, targetUrl: URL_A });

/** The lifecycle every scenario drives: A rolls out, succeeds and is cleaned up; then B catches up at success. */
const STEPS: Array<{ label: string; sha: string; desired: ForgeDesired }> = [
  { label: 'A in_progress', sha: SHA_A, desired: 'in_progress' },
  { label: 'A success', sha: SHA_A, desired: 'success' },
  { label: 'A gone', sha: SHA_A, desired: 'gone' },
  { label: 'B success', sha: SHA_B, desired: 'success' },
];

/** A call of the port to crash on: before it reaches Forgejo, or once Forgejo applied it but before the answer is recorded. */
interface CrashPoint {
  method: keyof CommitStatusPort;
  phase?: SentPhase;
  sha: string;
  before: boolean;
}

const CRASH_POINTS: CrashPoint[] = [
  { method: 'recentStatuses', sha: SHA_A, before: true },
  ...(['in_progress', 'success', 'gone'] as const).flatMap((phase) => [
    { method: 'createStatus' as const, phase, sha: SHA_A, before: true },
    { method: 'createStatus' as const, phase, sha: SHA_A, before: false },
  ]),
  { method: 'createStatus', phase: 'success', sha: SHA_B, before: true },
  { method: 'createStatus', phase: 'success', sha: SHA_B, before: false },
];
const nameOf = (p: CrashPoint) =>
  `${p.before ? 'before' : 'after'} ${p.method}${p.phase ? ` ${p.phase}` : ''} (${p.sha === SHA_A ? 'A' : 'B'})`;

class SimulatedCrash extends Error {}

/** Wraps a port so the chosen call throws as if the process died there; fires once. */
function crashing(port: CommitStatusPort, point: CrashPoint | undefined): CommitStatusPort {
  let fired = false;
  const guard = async <R>(method: keyof CommitStatusPort, sha: string, phase: ContextPhase | undefined, call: () => Promise<R>) => {
    const hit = !fired && point?.method === method && point.sha === sha && point.phase === phase;
    if (hit) fired = true;
    if (hit && point.before) throw new SimulatedCrash(nameOf(point));
    const out = await call();
    if (hit) throw new SimulatedCrash(nameOf(point));
    return out;
  };
  return {
    createStatus: (r, sha, body) =>
      guard('createStatus', sha, phaseOf({ status: body.state, description: body.description }), () => port.createStatus(r, sha, body)),
    latestStatus: (r, sha, context) => guard('latestStatus', sha, undefined, () => port.latestStatus(r, sha, context)),
    recentStatuses: (r, sha) => guard('recentStatuses', sha, undefined, () => port.recentStatuses(r, sha)),
  };
}

async function setup(t: Test): Promise<{ sim: ForgejoSimulator; port: ForgejoClient }> {
  const sim = await startForgejoSimulator({ tokens: [TOKEN], repos: ['acme/shop'], commits: { 'acme/shop': [SHA_A, SHA_B] } });
  t.teardown(() => sim.close());
  return { sim, port: new ForgejoClient({ apiBase: sim.apiUrl, token: TOKEN, userAgent: 'gdb-test' }) };
}

const reads = (sim: ForgejoSimulator) => sim.requests.filter((r) => r.method === 'GET').length;
const writes = (sim: ForgejoSimulator) => sim.requests.filter((r) => r.method === 'POST').length;

/**
 * Runs the lifecycle over a fresh simulator and store; on a crash, "restarts": a new publisher over
 * the same store (as the SQLite file outlives the process) runs the step again.
 */
async function run(t: Test, crash?: CrashPoint) {
  const { sim, port } = await setup(t);
  const store = new MemoryStatusStore();
  let clock = 1_000;
  const publisherOver = (p: CommitStatusPort) => new CommitStatusPublisher({ forge: p, store, log, now: () => ++clock });
  let publisher = publisherOver(crashing(port, crash));
  let left: CommitStatusRecord | undefined;
  let recovery: { reads: number; writes: number; read: boolean } | undefined;
  for (const step of STEPS) {
    try {
      await publisher.publish(target(step.sha), step.desired, step.label);
    } catch (err) {
      if (!(err instanceof SimulatedCrash)) throw err;
      left = store.get(target(step.sha));
      publisher = publisherOver(port);
      const before = { reads: reads(sim), writes: writes(sim) };
      const result = await publisher.publish(target(step.sha), step.desired, step.label);
      recovery = { reads: reads(sim) - before.reads, writes: writes(sim) - before.writes, read: result.read };
    }
  }
  const total = { reads: reads(sim), writes: writes(sim) };
  for (const step of STEPS.slice(2))
    t.same((await publisher.publish(target(step.sha), step.desired, 'again')).sent, [], `${step.label} again`);
  return { sim, left, recovery, total, replay: sim.requests.length - total.reads - total.writes };
}

/** What every run must leave on Forgejo, crash or not. */
function assertForgejo(t: Test, sim: ForgejoSimulator) {
  const a = sim.statuses('acme', 'shop', SHA_A);
  t.same(
    a.map((s) => [s.index, s.state, s.target_url]),
    [
      [1, 'pending', URL_A],
      [2, 'success', URL_A],
      [3, 'success', ''],
    ],
    'A: pending, success, then gone without its URL',
  );
  t.match(a[2]?.description, /^Deployment gone: A gone$/);
  t.same(
    sim.statuses('acme', 'shop', SHA_B).map((s) => s.state),
    ['success'],
    'B: caught up at success',
  );
  t.ok(
    [...a, ...sim.statuses('acme', 'shop', SHA_B)].every((s) => s.context === CONTEXT),
    'one context',
  );
  t.same(sim.violations, [], "every request matched Forgejo's swagger");
}

const BASELINE = { reads: 2, writes: 4 };

t.test('the lifecycle without a crash: one read per commit first seen, two writes per rollout, one for the end', async (t) => {
  const r = await run(t);
  assertForgejo(t, r.sim);
  t.same(r.total, BASELINE);
  t.equal(r.replay, 0, 'publishing the same truth again costs no request');
});

t.test('a crash at every step of the protocol', async (t) => {
  for (const point of CRASH_POINTS) {
    await t.test(nameOf(point), async (t) => {
      const r = await run(t, point);
      if (point.method === 'createStatus') t.match(r.left, { pendingPhase: point.phase }, 'left pending in the store');
      else t.equal(r.left, undefined, 'nothing stored yet');
      assertForgejo(t, r.sim);
      const sentBeforeCrash = point.method === 'createStatus' ? 1 : 0;
      t.same(r.total, { reads: BASELINE.reads + sentBeforeCrash, writes: BASELINE.writes }, 'no write repeated, none missed');
      t.same(r.recovery, { reads: 1, writes: point.before ? 1 : 0, read: true }, 'recovery: one read, then only what is missing');
      t.equal(r.replay, 0, 'the store is settled: a replay sends nothing');
    });
  }
});

/** A publisher over a fresh store and the simulator's real client. */
const publisherFor = (port: CommitStatusPort, store = new MemoryStatusStore()) =>
  new CommitStatusPublisher({ forge: port, store, log, now: () => 1 });

t.test('a 4xx answer clears the pending mark: Forgejo stored nothing, so nothing is read back', async (t) => {
  const { sim, port } = await setup(t);
  const store = new MemoryStatusStore();
  const publisher = publisherFor(port, store);
  sim.inject({ method: 'POST', status: 403, body: { message: 'forbidden', url: '' } });
  await t.rejects(publisher.publish(target(SHA_A), 'in_progress', 'Progressing'), { name: 'ForgeError', status: 403 });
  t.same(store.get(target(SHA_A)), { phase: null, description: null, pendingPhase: null });
  t.same(await publisher.publish(target(SHA_A), 'in_progress', 'Progressing'), { sent: ['in_progress'], read: false });
  t.equal(reads(sim), 1, 'only the first sight read');
});

t.test('an answer lost after the work (502) stays pending and is settled by one read, not sent again', async (t) => {
  const { sim, port } = await setup(t);
  const store = new MemoryStatusStore();
  const publisher = publisherFor(port, store);
  sim.inject({ method: 'POST', afterWork: 502 });
  await t.rejects(publisher.publish(target(SHA_A), 'success', 'Ready'), { name: 'ForgeError', status: 502 });
  t.match(store.get(target(SHA_A)), { pendingPhase: 'success' });
  t.same(await publisher.publish(target(SHA_A), 'success', 'Ready'), { sent: [], read: true });
  t.same(store.get(target(SHA_A)), { phase: 'success', description: 'Ready', pendingPhase: null });
  t.equal(sim.statuses('acme', 'shop', SHA_A).length, 1);
});

t.test('a lost store: the first publish adopts what Forgejo shows, so nothing is sent twice', async (t) => {
  const { sim, port } = await setup(t);
  await publisherFor(port).publish(target(SHA_A), 'success', 'Ready');
  const fresh = publisherFor(port);
  t.same(await fresh.publish(target(SHA_A), 'success', 'Ready'), { sent: [], read: true });
  t.same(await fresh.publish(target(SHA_A), 'in_progress', 'Progressing'), { sent: [], read: false }, 'never pending after success');
  t.same(await fresh.publish(target(SHA_A), 'gone', 'closed'), { sent: ['gone'], read: false });
  t.same(await publisherFor(port).publish(target(SHA_A), 'gone', 'closed'), { sent: [], read: true }, 'gone is recognised when read back');
  t.same(
    sim.statuses('acme', 'shop', SHA_A).map((s) => s.state),
    ['success', 'success'],
  );
});

t.test('two clusters on one commit: separate contexts, neither settles nor overwrites the other', async (t) => {
  const { sim, port } = await setup(t);
  const eu = publisherFor(port);
  const us = publisherFor(port);
  const usTarget = target(SHA_A, 'deploy/preview-pr-42 (us-2)');
  await eu.publish(target(SHA_A), 'in_progress', 'Progressing');
  await us.publish(usTarget, 'success', 'Ready');
  t.same(await eu.publish(target(SHA_A), 'success', 'Ready'), { sent: ['success'], read: false });
  t.same(await us.publish(usTarget, 'gone', 'closed'), { sent: ['gone'], read: false });
  const byContext = (context: string) =>
    sim
      .statuses('acme', 'shop', SHA_A)
      .filter((s) => s.context === context)
      .map((s) => s.state);
  t.same(byContext(CONTEXT), ['pending', 'success']);
  t.same(byContext(usTarget.context), ['success', 'success']);
});
