/**
 * Pull request comments spend GitHub's budget in a class of their own, below deployment work: 97 annotation flips
 * (a comment on each of 97 pull requests) once took the scope's write windows and, refused by GitHub, paused every
 * GitHub request of the token for an hour. Now they use a quarter of each window at most, never wait in place,
 * and a refusal of a comment pauses comments only.
 */
import t from 'tap';
import { BudgetDeferred } from '../../../src/forges/github/budget-gate.js';
import { ForgePaused } from '../../../src/forges/forge-health.js';
import { startRig, sha, target, OWNER, REPO } from './rig.js';

const GITHUB_WINDOWS = [
  { count: 80, ms: 60_000 },
  { count: 500, ms: 3_600_000 },
];
const repo = { owner: OWNER, repo: REPO };

t.test('97 annotation flips: comments take at most their share, production writes go at once', async (t) => {
  const rig = await startRig(t, { writeBudget: GITHUB_WINDOWS, sim: { secondaryLimits: true } });
  let created = 0;
  let deferred = 0;
  for (let pr = 1; pr <= 97; pr++) {
    rig.sim.pullRequest(OWNER, REPO, pr, { head: sha(`flip-${pr}`) });
    try {
      await rig.side.comments.create(repo, pr, `<!-- m -->\nflip ${pr}`);
      created += 1;
    } catch (err) {
      t.ok(err instanceof BudgetDeferred, 'a comment past its share is told to come back, not sent');
      deferred += 1;
    }
  }
  t.equal(created, 20, "a quarter of the minute's 80 writes");
  t.equal(deferred, 77);
  const results = [];
  for (const name of ['a', 'b', 'c']) results.push(await rig.attempt(target(sha(name), `${OWNER}/${name}`), 'success'));
  t.same(
    results.map((r) => Object.keys(r)[0]),
    ['ok', 'ok', 'ok'],
    'every production publish went at once (no deferral, no pause)',
  );
  t.equal(rig.sim.secondaryRefusals(), 0, 'GitHub never refused a write');
  t.equal(rig.side.health.pausedUntil('token'), null);
});

t.test("a secondary limit on a comment pauses the token's comments, not its deployments", async (t) => {
  const rig = await startRig(t, { writeBudget: GITHUB_WINDOWS });
  rig.sim.pullRequest(OWNER, REPO, 5, { head: sha('pr-5') });
  rig.sim.inject({ method: 'POST', path: '/issues/5/comments', ...rig.sim.faults.secondaryRateLimit(3600) });
  await t.rejects(rig.side.comments.create(repo, 5, 'x'), { name: 'GitHubCallError', retryAt: rig.clock.now + 3_600_000 });
  t.equal(rig.side.health.pausedUntil('token'), null, 'the token is not paused');
  t.match(rig.side.health.snapshot().pauses, [{ scope: 'token (comments)', kind: 'secondary' }], '/state names the comments pause');
  await t.rejects(rig.side.comments.create(repo, 5, 'y'), ForgePaused, 'the next comment waits for the pause');
  const done = await rig.attempt(target(sha('prod')), 'success');
  t.ok('ok' in done, 'production publishes during the comment pause');
});

t.test('comments keep out of the primary reserve, however long they have waited', async (t) => {
  const rig = await startRig(t, { writeBudget: GITHUB_WINDOWS, sim: { requestsPerHour: 100 } });
  rig.sim.pullRequest(OWNER, REPO, 7, { head: sha('pr-7') });
  // Spend the hour's budget down to 20 of 100 left (GitHub reports it with every answer).
  for (let i = 0; i < 80; i++)
    await fetch(`${rig.sim.url}/repos/${OWNER}/${REPO}/deployments`, { headers: { authorization: 'token ghs_rig_token' } });
  await rig.attempt(target(sha('warm')), 'success');
  await t.rejects(rig.side.comments.pullRequest(repo, 7), BudgetDeferred, 'a comment read keeps back 21 % of the budget');
  rig.clock.now += 30 * 60_000;
  await t.rejects(rig.side.comments.pullRequest(repo, 7), BudgetDeferred, 'and still after half an hour of waiting');
  const done = await rig.attempt(target(sha('prod-2'), `${OWNER}/other`), 'success');
  t.ok('ok' in done, `production still spends it: ${JSON.stringify(done)}`);
});
