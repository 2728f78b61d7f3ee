/** Forgejo's pull request comments through the real client and gate against the simulator's comment endpoints. */
import t, { type Test } from 'tap';
import { CommentRefused } from '../../../src/forges/comments-port.js';
import { forgejoSide } from '../side-rigs.js';

const TOKEN = 'fj_comments_token';
const repo = { owner: 'acme', repo: 'web' };

async function side(t: Test) {
  const { sim, side } = await forgejoSide(t, TOKEN, { tokens: [TOKEN, 'other'], login: 'deploy-bridge' });
  return { sim, comments: side.comments };
}

t.test('create, edit, list its own (one unpaginated list)', async (t) => {
  const { sim, comments } = await side(t);
  sim.pullRequest('acme', 'web', 4);
  t.same(await comments.pullRequest(repo, 4), { open: true, locked: false });
  const id = await comments.create(repo, 4, '<!-- m -->\none');
  t.equal(await comments.edit(repo, 4, id, '<!-- m -->\ntwo'), true);
  for (let i = 0; i < 60; i++) await comments.create(repo, 4, `note ${i}`);
  const own = await comments.listOwn(repo, 4);
  t.equal(own.length, 61);
  t.equal(own[0]!.body, '<!-- m -->\ntwo');
  t.equal(sim.commentWrites().length, 62);
  t.same(sim.violations, [], 'every request and answer matched the swagger slice');
});

t.test('refusals: missing, locked, closed, deleted comment, empty body', async (t) => {
  const { sim, comments } = await side(t);
  await t.rejects(comments.pullRequest(repo, 9), CommentRefused);
  sim.pullRequest('acme', 'web', 5, { locked: true });
  t.same(await comments.pullRequest(repo, 5), { open: true, locked: true });
  await t.rejects(comments.create(repo, 5, 'x'), { name: 'CommentRefused', reason: /locked/ });
  sim.pullRequest('acme', 'web', 6, { state: 'closed' });
  t.same(await comments.pullRequest(repo, 6), { open: false, locked: false });
  t.equal(await comments.edit(repo, 6, 424242, 'x'), false);
  await t.rejects(comments.create(repo, 6, ''), { name: 'CommentRefused', reason: /422/ });
});

t.test("the deployed commit must be the pull request's head (one read of the pull request)", async (t) => {
  const { sim, comments } = await side(t);
  const head = 'c'.repeat(40);
  sim.pullRequest('acme', 'web', 7, { head });
  t.equal(await comments.commitOnPullRequest(repo, 7, head), undefined, 'its head');
  t.equal(await comments.commitOnPullRequest(repo, 7, head.slice(0, 7)), undefined, 'its head, as a short sha');
  t.match(await comments.commitOnPullRequest(repo, 7, 'd'.repeat(40)), /not the head of pull request #7 .*its head is ccccccc/);
  await t.rejects(comments.commitOnPullRequest(repo, 8, head), CommentRefused, 'a missing pull request');
  t.same(sim.violations, [], 'every request and answer matched the swagger slice');
});
