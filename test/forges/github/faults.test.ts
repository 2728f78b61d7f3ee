/**
 * Every GitHub fault the bridge meets, through the real clients and publisher against the simulator:
 * the exact requests and writes that reach GitHub, and never a duplicate deployment or status.
 * The clock is the test's: a pause or a late retry is crossed by moving it, not by waiting.
 */
import t, { type Test } from 'tap';
import { ForgePaused, TOKEN_SCOPE } from '../../../src/forges/forge-health.js';
import { REFUSAL_RETRY_MS } from '../../../src/lifecycle/refusal.js';
import type { Fault } from '../../harness/github-sim.js';
import { requestLog, sha, startRig, target, type Attempt, type Rig } from './rig.js';

const COMMIT = sha('faults-1');
const CREATE = /\/deployments$/;
const STATUS = /\/statuses$/;

const kind = (a: Attempt) => ('ok' in a ? 'ok' : 'retry' in a ? 'retry' : 'refused');

/** Writes that reached GitHub and changed something, as `create` / `status:<state>`. */
const writes = (rig: Rig) =>
  rig.sim.writes().map((w) => (CREATE.test(w.path) ? 'create' : `status:${(w.body as { state: string }).state}`));

/** While paused, an attempt sends nothing at all; then the clock moves to the pause's end. */
async function sitOutPause(t: Test, rig: Rig): Promise<void> {
  const until = rig.side.health.pausedUntil(TOKEN_SCOPE);
  t.ok(until, "the token's requests are paused");
  t.equal(rig.side.health.pausedUntil(), null, 'a rate limit does not stop the worker');
  const before = rig.sim.requests.length;
  const a = await rig.attempt(target(COMMIT), 'success');
  t.ok('retry' in a && a.retry instanceof ForgePaused, 'refused locally while paused');
  t.equal(rig.sim.requests.length, before, 'no request reached GitHub during the pause');
  rig.clock.now = until!;
}

const resetIn = (rig: Rig, s: number) => Math.ceil(rig.clock.now / 1000) + s;

interface Case {
  name: string;
  faults: (rig: Rig) => Fault[];
  /** Attempt outcomes in order; `pause` sits out the pause before the next attempt. */
  steps: Array<'ok' | 'retry' | 'pause'>;
  requests: string[];
  timeoutMs?: number;
}

const CASES: Case[] = [
  { name: 'no fault', faults: () => [], steps: ['ok'], requests: ['list 200', 'create 201', 'status 201'] },
  {
    name: 'primary rate limit (403) on the create: paused until the reset, then one create',
    faults: (rig) => [{ method: 'POST', path: CREATE, ...rig.sim.faults.primaryRateLimit(resetIn(rig, 600)) }],
    steps: ['retry', 'pause', 'ok'],
    requests: ['list 200', 'create 403', 'list 200', 'create 201', 'status 201'],
  },
  {
    name: 'primary rate limit (429) on the status: no status read after the pause',
    faults: (rig) => [{ method: 'POST', path: STATUS, kind: { ...rig.sim.faults.primaryRateLimit(resetIn(rig, 600)), status: 429 } }],
    steps: ['retry', 'pause', 'ok'],
    requests: ['list 200', 'create 201', 'status 429', 'status 201'],
  },
  {
    name: 'secondary rate limit (403, retry-after)',
    faults: (rig) => [{ method: 'POST', path: STATUS, ...rig.sim.faults.secondaryRateLimit(120) }],
    steps: ['retry', 'pause', 'ok'],
    requests: ['list 200', 'create 201', 'status 403', 'status 201'],
  },
  {
    name: "secondary rate limit (429, no retry-after): GitHub's one-minute wait",
    faults: () => [{ method: 'POST', path: CREATE, status: 429, body: { message: 'You have exceeded a secondary rate limit.' } }],
    steps: ['retry', 'pause', 'ok'],
    requests: ['list 200', 'create 429', 'list 200', 'create 201', 'status 201'],
  },
  {
    name: '502 before the work: retried by the queue, one create',
    faults: () => [{ method: 'POST', path: CREATE, status: 502 }],
    steps: ['retry', 'ok'],
    requests: ['list 200', 'create 502', 'list 200', 'create 201', 'status 201'],
  },
  {
    name: '502 after the create did its work: found by the list call, not created again',
    faults: () => [{ method: 'POST', path: CREATE, afterWork: 502 }],
    steps: ['retry', 'ok'],
    requests: ['list 200', 'create 502', 'list 200', 'listStatuses 200', 'status 201'],
  },
  {
    name: '503 after the status did its work: read back, not sent again',
    faults: () => [{ method: 'POST', path: STATUS, afterWork: 503 }],
    steps: ['retry', 'ok'],
    requests: ['list 200', 'create 201', 'status 503', 'listStatuses 200'],
  },
  {
    name: 'hanging create (timeout): the retry lists first',
    faults: () => [{ method: 'POST', path: CREATE, hang: true }],
    timeoutMs: 300,
    steps: ['retry', 'ok'],
    requests: ['list 200', 'create none', 'list 200', 'create 201', 'status 201'],
  },
  {
    name: 'connection reset on the status: read back before sending again',
    faults: () => [{ method: 'POST', path: STATUS, reset: true }],
    steps: ['retry', 'ok'],
    requests: ['list 200', 'create 201', 'status none', 'listStatuses 200', 'status 201'],
  },
];

for (const c of CASES) {
  t.test(c.name, async (t) => {
    const rig = await startRig(t, c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs });
    for (const f of c.faults(rig)) rig.sim.inject(f);
    const x = target(COMMIT);
    const outcomes: string[] = [];
    for (const step of c.steps) {
      if (step === 'pause') await sitOutPause(t, rig);
      else outcomes.push(kind(await rig.attempt(x, 'success')));
    }
    t.same(
      outcomes,
      c.steps.filter((s) => s !== 'pause'),
      'attempt outcomes',
    );
    t.same(requestLog(rig.sim), c.requests, 'requests that reached GitHub');
    t.same(writes(rig), ['create', 'status:success'], 'exactly one create and one status were applied');
    t.same(rig.trail(), [['success']], 'one deployment, one success: no duplicate');
    t.same(rig.sim.violations, []);
    t.match(rig.deployments.get(x.target), { state: 'success', pendingState: null });
    await rig.attempt(x, 'success');
    t.equal(rig.sim.requests.length, c.requests.length, 'the same truth again costs nothing');
  });
}

t.test('backlog: statuses overtaken during a pause are dropped, only the newest truth is sent', async (t) => {
  const rig = await startRig(t);
  const x = target(COMMIT);
  rig.sim.inject({ method: 'POST', path: STATUS, ...rig.sim.faults.primaryRateLimit(resetIn(rig, 600)) });
  t.equal(kind(await rig.attempt(x, 'in_progress')), 'retry', 'in_progress is refused by the rate limit');
  t.match(rig.deployments.get(x.target), { state: null, pendingState: null }, 'the refused status leaves nothing to settle');
  await sitOutPause(t, rig);
  // Flux finished meanwhile: the retried source reads success.
  t.equal(kind(await rig.attempt(x, 'success')), 'ok');
  t.same(writes(rig), ['create', 'status:success'], 'in_progress was never sent late');
  t.same(requestLog(rig.sim), ['list 200', 'create 201', 'status 403', 'status 201']);
});

t.test('401: credentials rejected, work paused and not ready; the check passes and the work resumes', async (t) => {
  const rig = await startRig(t);
  const x = target(COMMIT);
  let resumed = 0;
  rig.side.health.onResume(() => {
    resumed += 1;
  });
  rig.sim.inject({ method: 'POST', path: STATUS, status: 401, body: { message: 'Bad credentials' } });
  t.equal(kind(await rig.attempt(x, 'success')), 'retry', '401 is work for later, not a skip');
  t.match(rig.side.health.readinessProblem(), /^GitHub credentials rejected: 401 Bad credentials/);
  t.ok(rig.side.health.pausedUntil());
  // The monitor checks again at once on its own (GET /rate_limit, never paused).
  for (let i = 0; i < 500 && resumed === 0; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(resumed, 1, 'the worker is told to resume');
  t.equal(rig.side.health.readinessProblem(), undefined);
  t.equal(kind(await rig.attempt(x, 'success')), 'ok');
  t.same(requestLog(rig.sim), ['list 200', 'create 201', 'status 401', 'rate_limit 200', 'status 201']);
  t.same(writes(rig), ['create', 'status:success']);
});

/** Refusals: skipped with the reason, no write, nothing repeated for an hour (resync every 5 minutes), then one try. */
const REFUSALS: Array<{
  name: string;
  sim?: Record<string, unknown>;
  fault?: Fault;
  requests: string[];
  code: string;
  reason: RegExp;
  key: 'repo' | 'deployment';
}> = [
  {
    name: '404 (no such repository or no access)',
    sim: { repos: ['acme/other'] },
    requests: ['list 404'],
    code: 'github_not_found',
    key: 'repo',
    reason: /^acme\/shop not found, or GITHUB_TOKEN cannot see it/,
  },
  {
    name: '403 without a rate limit (no permission)',
    fault: { method: 'GET', path: CREATE, status: 403, body: { message: 'Resource not accessible by personal access token' } },
    requests: ['list 403'],
    code: 'github_forbidden',
    key: 'repo',
    reason: /^GitHub refused access to acme\/shop \(403 Resource not accessible/,
  },
  {
    name: '409 on the create',
    fault: { method: 'POST', path: CREATE, status: 409, body: { message: 'Conflict: Commit status checks failed for main.' } },
    requests: ['list 200', 'create 409'],
    code: 'github_conflict',
    key: 'deployment',
    reason: /^GitHub answered 409 for the deployment of [0-9a-f]{7} to acme\/shop/,
  },
  {
    name: '422 (commit not in the repository)',
    sim: { commits: { 'acme/shop': [sha('another')] } },
    requests: ['list 200', 'create 422'],
    code: 'github_invalid',
    key: 'deployment',
    reason: new RegExp(`^commit ${COMMIT.slice(0, 7)} not found in acme/shop`),
  },
];

for (const r of REFUSALS) {
  t.test(`refused: ${r.name}`, async (t) => {
    const rig = await startRig(t, { sim: r.sim ?? {} });
    if (r.fault) rig.sim.inject({ ...r.fault, times: Infinity });
    const x = target(COMMIT);
    const first = await rig.attempt(x, 'success');
    t.ok('refused' in first, 'skipped, not retried soon');
    if (!('refused' in first)) return;
    t.match(first.refused.refusal, { code: r.code, key: new RegExp(`^${r.key}:`) });
    t.match(first.refused.message, r.reason);
    t.match(first.refused.message, /\(next try \d{4}-/);
    t.same(requestLog(rig.sim), r.requests);
    t.same(rig.sim.writes(), [], 'nothing written');
    t.equal(rig.deployments.get(x.target), undefined, 'no provisional row left behind');
    for (let m = 5; m < 60; m += 5) {
      rig.clock.now += 5 * 60_000;
      t.ok('refused' in (await rig.attempt(x, 'success')), `resync after ${m} min: skipped`);
    }
    t.equal(rig.sim.requests.length, r.requests.length, 'no request repeated within the hour');
    rig.clock.now = first.refused.refusal.retryAt;
    t.ok('refused' in (await rig.attempt(x, 'success')), 'tried once more after the hour');
    t.same(requestLog(rig.sim), [...r.requests, ...r.requests], 'exactly one more try');
    t.equal(
      rig.refusals.active([first.refused.refusal.key], rig.clock.now)?.retryAt,
      rig.clock.now + REFUSAL_RETRY_MS,
      'and the next try is an hour later',
    );
    if (r.key === 'deployment') {
      rig.sim.reset();
      t.equal(kind(await rig.attempt(target(sha('another')), 'success')), 'ok', 'only that deployment is blocked, not the repository');
    }
  });
}
