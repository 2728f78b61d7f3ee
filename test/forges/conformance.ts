/**
 * The forge conformance suite: what every forge must do against its own simulator, whatever its wire
 * words. A forge gets it by one line, `forgeConformance(t, driver)`, in test/forges/<name>/conformance.test.ts,
 * where its driver (conformance-rig.ts: start the simulator, the settings, its writes in neutral words,
 * its 429, its documented writes) is the only forge-specific part. Write counts come from the
 * simulator's own request log, never from the bridge's counters.
 */
import type { Test } from 'tap';
import { isRetryable } from '../../src/common/errors.js';
import { askedRetryAt } from '../../src/runtime/worker.js';
import { REFUSAL_RETRY_MS } from '../../src/lifecycle/refusal.js';
import type { DesiredState } from '../../src/lifecycle/status-plan.js';
import { RefusedByForge } from '../../src/forges/refusal-guard.js';
import type { SimRecord } from '../harness/sim-server.js';
import { locationConformance } from './conformance-location.js';
import { portsConformance } from './conformance-ports.js';
import { LOCKED, MISSING, SHA, openWorld, type ConformanceDriver, type Published, type World } from './conformance-rig.js';

const RETRY_AFTER_S = 30;

/** One publish as the worker runs it: the states sent, or the error it would retry later. */
async function publish(w: World, p: Published, desired: DesiredState): Promise<readonly string[] | Error> {
  try {
    return (await w.forge.publish(p.target, p.origin, desired, desired === 'success' ? 'Rollout complete' : 'Progressing')).sent;
  } catch (err) {
    return err as Error;
  }
}

/** Retires a target's row as the cleanup does (the row read from the SQLite file). */
async function retire(w: World, p: Published): Promise<boolean> {
  const row = w.row(p);
  if (row === undefined) throw new Error(`no row for ${p.target.environment}`);
  return w.forge.retire(row, 'workload deleted');
}

/**
 * A crash point at the `n`-th write (from 1): applied by the simulator and its answer never reaching the bridge
 * (`after`), or its connection lost before the simulator saw it (`before`).
 */
function dropAtWrite(w: World, n: number, when: 'before' | 'after'): void {
  let seen = 0;
  const isWrite = (r: SimRecord) => w.asksToWrite(r) && (when === 'before' || r.didWork);
  w.sim.hook({ when, times: Infinity, run: (r) => (isWrite(r) && ++seen === n ? 'drop' : undefined) });
}

const CRASHES = [
  { when: 'after', restart: false, what: 'applied, its answer lost' },
  { when: 'after', restart: true, what: 'applied, its answer lost, the process dies' },
  { when: 'before', restart: false, what: 'lost before it arrived' },
] as const;

/** What a deployment shows once retired: ended (`gone`) when the retire wrote, else still live. */
const ended = (retireWrites: readonly string[]) => (retireWrites.length > 0 ? 'gone' : 'success');
const state = (p: Published, s: string) => `${p.target.environment} ${SHA.slice(0, 7)} ${s}`;

export function forgeConformance<S extends R, R>(t: Test, driver: ConformanceDriver<S, R>): void {
  const { expected } = driver;
  const world = (t: Test) => openWorld(t, driver);

  t.test('the same desired state published twice is written once, also after a restart', async (t) => {
    const w = await world(t);
    const p = w.target();
    t.same(await publish(w, p, 'in_progress'), ['in_progress']);
    const once = w.writes().length;
    t.same(await publish(w, p, 'in_progress'), [], 'nothing planned');
    t.equal(w.writes().length, once, 'the simulator saw no second write');
    t.same(await publish(w, p, 'success'), ['success']);
    t.same(await publish(w, p, 'success'), []);
    w.restart();
    t.same(await publish(w, p, 'success'), [], 'a new process knows it from the SQLite file');
    t.same(w.writes(), expected.rollout);
    t.same(w.shown(), [state(p, 'success')]);
    t.same(w.sim.violations, []);
  });

  for (const preview of [false, true])
    for (const restart of [false, true]) {
      const rollout = preview ? expected.previewRollout : expected.rollout;
      const retired = preview ? expected.previewRetire : expected.retire;
      const where = `in a ${preview ? 'transient' : 'permanent'} environment${restart ? ', a restart in between' : ''}`;
      t.test(`a rollout, then its workload gone, ${where}`, async (t) => {
        const w = await world(t);
        const p = w.target({ preview });
        t.same(await publish(w, p, 'in_progress'), ['in_progress']);
        t.same(await publish(w, p, 'success'), ['success']);
        t.same(w.writes(), rollout, 'the forge’s minimal write sequence');
        t.same(w.shown(), [state(p, 'success')]);
        if (restart) w.restart();
        t.equal(await retire(w, p), retired.length > 0, 'retire says whether it wrote');
        t.same(w.writes().slice(rollout.length), retired, 'the forge’s retire write');
        t.same(w.shown(), [state(p, ended(retired))], 'a retire that writes ends it');
        const after = w.writes().length;
        t.equal(await retire(w, p), false, 'a second retire has nothing left to end');
        t.equal(w.writes().length, after);
        t.same(w.sim.violations, []);
      });
    }

  // The driver's locked repository (403, or 404 where the forge hides what a token cannot write), and one that does not exist.
  for (const repo of [LOCKED, MISSING])
    t.test(`a refused repository (${repo}) is a skip with a reason, asked once`, async (t) => {
      const w = await world(t);
      const p = w.target({ repo });
      const first = await publish(w, p, 'in_progress');
      t.type(first, RefusedByForge);
      if (!(first instanceof RefusedByForge)) return;
      t.match(first.refusal.reason, /\S/, 'says why');
      t.ok(first.refusal.retryAt >= Date.now() + REFUSAL_RETRY_MS - 60_000, 'not asked again before the refusal retry time');
      const asked = w.sim.requests.map((r) => `${r.method} ${r.path}`);
      t.same(asked, [...new Set(asked)], 'no request repeated: no retry loop');
      t.type(await publish(w, p, 'in_progress'), RefusedByForge, 'still skipped');
      t.equal(w.sim.requests.length, asked.length, 'and nothing more asked');
      t.same(w.writes(), []);
      t.equal(w.row(p), undefined, 'no provisional row left behind');
    });

  const faults = [
    { what: 'a 5xx', fault: { status: 503, times: 2 }, waitMs: 0 },
    {
      what: `a 429 with Retry-After ${RETRY_AFTER_S}`,
      fault: { ...driver.rateLimited(RETRY_AFTER_S), times: 1 },
      waitMs: RETRY_AFTER_S * 1000,
    },
  ];
  for (const { what, fault, waitMs } of faults)
    for (const at of ['in_progress', 'success'] as const) {
      t.test(`${what} at the ${at} publish is retried to the final state, no duplicate`, async (t) => {
        const w = await world(t);
        const p = w.target();
        if (at === 'success') t.same(await publish(w, p, 'in_progress'), ['in_progress']);
        w.sim.inject(fault);
        const failed = await publish(w, p, at);
        t.type(failed, Error, 'the attempt fails');
        t.ok(isRetryable(failed), 'to be retried by the queue, not refused');
        if (waitMs > 0) {
          t.ok((askedRetryAt(failed) ?? 0) >= Date.now() + waitMs - 1000, 'not before the forge asked');
          const before = w.sim.requests.length;
          t.type(await publish(w, p, at), Error, 'a retry before then fails');
          t.equal(w.sim.requests.length, before, 'without a request');
          w.tick(waitMs + 1000);
        }
        let last = await publish(w, p, at);
        for (let i = 1; i < fault.times && last instanceof Error; i++) last = await publish(w, p, at);
        t.same(last, [at], 'the retry sends it');
        if (at === 'in_progress') t.same(await publish(w, p, 'success'), ['success']);
        t.same(w.writes(), expected.rollout);
        t.same(w.shown(), [state(p, 'success')]);
        t.same(w.sim.violations, []);
      });
    }

  const points = [...expected.previewRollout, ...expected.previewRetire];
  for (const [i, word] of points.entries())
    for (const { when, restart, what } of CRASHES) {
      t.test(`write ${i + 1} (${word}) ${what}: no duplicate, none missing`, async (t) => {
        const w = await world(t);
        const p = w.target({ preview: true });
        dropAtWrite(w, i + 1, when);
        let failures = 0;
        const again = async <T>(step: () => Promise<T>): Promise<T | Error> => {
          try {
            return await step();
          } catch (err) {
            failures++;
            t.ok(isRetryable(err), `to be retried: ${(err as Error).message}`);
            if (restart) w.restart();
            return step();
          }
        };
        for (const desired of ['in_progress', 'success'] as const) await again(() => w.forge.publish(p.target, p.origin, desired, desired));
        await again(() => retire(w, p));
        t.equal(failures, 1, 'the lost answer failed one step');
        t.same(w.writes(), points, 'every write once, none missing');
        t.same(w.shown(), [state(p, ended(expected.previewRetire))]);
        t.same(w.sim.violations, []);
      });
    }

  locationConformance(t, driver);
  portsConformance(t, driver);
}
