/**
 * GitHub's lane under its write budget (the rig's clock crosses the windows): a write whose turn has not
 * come is never sent and is built anew when it comes back; the order under backlog; reads keep a reserve.
 */
import t from 'tap';
import { BudgetDeferred } from '../../../src/forges/github/budget-gate.js';
import { requestLog, sha, startRig, target, type Attempt, type Rig } from './rig.js';

const MINUTE = 60_000;
const deferredUntil = (a: Attempt): number | undefined => ('retry' in a && a.retry instanceof BudgetDeferred ? a.retry.retryAt : undefined);

t.test('a deferred write is never sent; when it comes back it is built from the state of that moment', async (t) => {
  const rig = await startRig(t, { writeBudget: [{ count: 2, ms: MINUTE }] });
  const a = target(sha('a'), 'acme/a');
  const b = target(sha('b'), 'acme/b');
  t.ok('ok' in (await rig.attempt(a, 'success')), 'a: create and success, the whole minute');
  const start = rig.clock.now;
  const deferred = await rig.attempt(b, 'in_progress');
  t.equal(deferredUntil(deferred), start + MINUTE + 1000, 'b: its create waits for the minute to pass (and its margin)');
  t.same(requestLog(rig.sim).slice(-1), ['list 200'], "b's find was read; its create was not sent");
  t.equal(rig.sim.deployments('acme', 'b').length, 0);
  // The rollout finished while b waited: it comes back wanting success.
  rig.clock.now = start + MINUTE + 1000;
  const from = rig.sim.requests.length;
  const done = await rig.attempt(b, 'success');
  t.match(done, { ok: { created: true, sent: ['success'] } });
  t.same(requestLog(rig.sim, from), ['create 201', 'status 201'], 'no second find, and no in_progress');
  t.same(rig.trail('acme/b'), [['success']]);
  t.match(await rig.metrics.registry.getSingleMetricAsString('gdb_forge_requests_total'), /forge="github".*status="deferred"/);
});

/**
 * Drives publishes as the worker would: each round tries every unfinished one (in the order given, the worst
 * for the budget), then the clock moves to the earliest turn it was told. Returns the repositories in the
 * order their publish finished.
 */
async function drive(rig: Rig, pending: Array<{ name: string; x: ReturnType<typeof target> }>): Promise<string[]> {
  const done: string[] = [];
  for (let round = 0; pending.length > 0 && round < 50; round++) {
    const turns: number[] = [];
    for (const p of [...pending]) {
      const r = await rig.attempt(p.x, 'success');
      const at = deferredUntil(r);
      if (at !== undefined) turns.push(at);
      else if ('ok' in r) {
        done.push(p.name);
        pending.splice(pending.indexOf(p), 1);
      } else throw new Error(`unexpected: ${JSON.stringify(r)}`);
    }
    if (turns.length > 0) rig.clock.now = Math.max(rig.clock.now, Math.min(...turns));
  }
  return done;
}

const FILLER = {
  ref: 'main',
  environment: 'filler',
  description: 'filler',
  auto_merge: false as const,
  required_contexts: [],
  payload: {},
  production_environment: false,
  transient_environment: false,
};

t.test('the order under backlog: production before other environments, previews, then inactive', async (t) => {
  const rig = await startRig(t, { writeBudget: [{ count: 1, ms: MINUTE }] });
  // The minute is spent by a write that names no turn; then one write a minute.
  await rig.side.port.createDeployment({ owner: 'acme', repo: 'filler' }, FILLER);
  const preview = target(sha('p'), 'acme/p');
  preview.target = { ...preview.target, transientEnvironment: true };
  const prod = target(sha('q'), 'acme/q');
  prod.target = { ...prod.target, productionEnvironment: true };
  const done = await drive(rig, [
    { name: 'preview', x: preview },
    { name: 'staging', x: target(sha('s'), 'acme/s') },
    { name: 'production', x: prod },
  ]);
  t.same(done, ['production', 'staging', 'preview']);
  for (const repo of ['acme/p', 'acme/s', 'acme/q']) t.same(rig.trail(repo), [['success']], `${repo}: one create, one success`);
  t.equal(rig.sim.writes().length, 1 + 6);
});

t.test('a superseded deployment waits for its inactive behind every live status', async (t) => {
  const rig = await startRig(t, { writeBudget: [{ count: 2, ms: MINUTE }] });
  t.ok('ok' in (await rig.attempt(target(sha('old')), 'success')), 'the old commit is live: the minute is spent');
  const done = await drive(rig, [
    { name: 'new', x: target(sha('new')) },
    { name: 'o1', x: target(sha('o1'), 'acme/o1') },
    { name: 'o2', x: target(sha('o2'), 'acme/o2') },
  ]);
  t.equal(done.at(-1), 'new', 'its inactive went last');
  t.same(rig.trail(), [['success', 'inactive'], ['success']]);
  t.same(rig.trail('acme/o1'), [['success']]);
});

t.test('reads too: a cold start spends the primary budget by priority and degrades to later, never to a pause', async (t) => {
  const rig = await startRig(t, { sim: { requestsPerHour: 40 }, writeBudget: [{ count: 1000, ms: MINUTE }] });
  const deferred: number[] = [];
  let previews = 0;
  for (let i = 0; i < 20; i++) {
    const p = target(sha(`cold-${i}`), `acme/cold-${i}`);
    p.target = { ...p.target, transientEnvironment: true };
    const r = await rig.attempt(p, 'success');
    const at = deferredUntil(r);
    if (at !== undefined) deferred.push(at);
    else if ('ok' in r) previews++;
  }
  const budget = rig.side.health.budgetOf('token');
  t.ok(
    budget !== undefined && budget.remaining > 1 && budget.remaining <= 8,
    `previews stopped with a reserve left (${budget?.remaining})`,
  );
  t.ok(previews >= 8 && deferred.length >= 8, `${previews} previews reported, ${deferred.length} wait`);
  t.ok(
    deferred.every((at) => at === (budget?.resetAt ?? 0) + 1000),
    'the rest wait for the reset',
  );
  const prod = target(sha('cold-prod'), 'acme/cold-prod');
  prod.target = { ...prod.target, productionEnvironment: true };
  t.match(await rig.attempt(prod, 'success'), { ok: { sent: ['success'] } }, 'production still goes');
  t.equal(rig.side.health.pausedUntil('token'), null, 'the scope was never paused');
  t.equal(rig.sim.requests.filter((r) => r.status === 403).length, 0, 'no request refused by GitHub');
});
