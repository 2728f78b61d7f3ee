/**
 * The conformance suite's checks of what a forge gives besides its deployments, on its simulator: the outcomes the
 * store records for the DORA figures (a success or failure once, however often published), its commit times (the
 * lead time), and its pull request comments (create, list as its own, edit in place).
 */
import type { Test } from 'tap';
import { OWNER, REPO, SHA, openWorld, type ConformanceDriver, type Published } from './conformance-rig.js';

const PR = 7;

export function portsConformance<S extends R, R>(t: Test, driver: ConformanceDriver<S, R>): void {
  t.test('each success and failure the forge accepted is recorded once as an outcome, also after a restart', async (t) => {
    const w = await openWorld(t, driver);
    const publish = (p: Published, desired: 'in_progress' | 'success' | 'failure') => w.forge.publish(p.target, p.origin, desired, desired);
    const live = w.target();
    await publish(live, 'in_progress');
    t.same(w.outcomes(), [], 'a rollout in progress is no outcome');
    await publish(live, 'success');
    await publish(live, 'success');
    t.same(w.outcomes(), ['staging success'], 'the success once');
    w.restart();
    const preview = w.target({ preview: true });
    await publish(preview, 'in_progress');
    await publish(preview, 'failure');
    await publish(preview, 'failure');
    t.same(w.outcomes(), ['staging success', 'pr-7 failure'], 'a failure once');
  });

  t.test("its commit times: a commit's committer date, null for one the repository does not hold", async (t) => {
    const w = await openWorld(t, driver);
    const commits = w.forge.commits;
    if (commits === undefined) return t.fail(`${driver.driver.name} gives no commit times`);
    w.sim.commit(OWNER, REPO, SHA, { committedAt: '2026-11-30T10:00:00Z' });
    t.equal(await commits.committedAt(OWNER, REPO, SHA), Date.parse('2026-11-30T10:00:00Z'));
    const other = 'a'.repeat(40);
    w.sim.missingCommit(OWNER, REPO, other);
    t.equal(await commits.committedAt(OWNER, REPO, other), null);
  });

  t.test('its pull request comments: created, listed as its own, edited in place', async (t) => {
    const w = await openWorld(t, driver);
    const comments = w.forge.comments;
    if (comments === undefined) return t.fail(`${driver.driver.name} gives no comments`);
    const repo = { owner: OWNER, repo: REPO };
    w.driverWorld.pullRequest(PR);
    t.same(await comments.pullRequest(repo, PR), { open: true, locked: false });
    t.same(await comments.listOwn(repo, PR), [], 'none yet');
    const id = await comments.create(repo, PR, 'first');
    t.same(await comments.listOwn(repo, PR), [{ id, body: 'first' }]);
    t.equal(await comments.edit(repo, PR, id, 'second'), true);
    t.same(w.driverWorld.comments(PR), ['second'], 'one comment on the forge, edited');
    t.equal(await comments.commitOnPullRequest(repo, PR, SHA), undefined, "the pull request's head");
    t.same(w.sim.violations, []);
  });
}
