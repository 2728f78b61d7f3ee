/** GitLab's pull request comments (merge request notes) through the real client and gate against the simulator. */
import t, { type Test } from 'tap';
import { ForgeError } from '../../../src/common/errors.js';
import { CommentRefused } from '../../../src/forges/comments-port.js';
import { gitlabCommentRefusalOf } from '../../../src/forges/gitlab/gitlab-comments.js';
import { rateLimitFault } from '../../harness/gitlab-sim.js';
import { gitlabSide } from '../side-rigs.js';

const TOKEN = 'glpat-comments';
const PROJECT = 'platform/team/web';
const repo = { owner: 'platform/team', repo: 'web' };
const SHA = 'c'.repeat(40);

async function side(t: Test) {
  const { sim, side } = await gitlabSide(t, TOKEN, { tokens: { [TOKEN]: 'deploy-bridge', other: 'someone-else' } });
  return { sim, comments: side.comments, other: otherUser(sim) };
}

/** A note by another user, straight on the simulator's API. */
const otherUser = (sim: { apiUrl: string }) => async (iid: number, body: string) => {
  const res = await fetch(`${sim.apiUrl}/projects/${encodeURIComponent(PROJECT)}/merge_requests/${iid}/notes`, {
    method: 'POST',
    headers: { 'private-token': 'other', 'content-type': 'application/json' },
    body: JSON.stringify({ body }),
  });
  return ((await res.json()) as { id: number }).id;
};

t.test('create, edit, list its own on every page', async (t) => {
  const { sim, comments, other } = await side(t);
  sim.mergeRequest(PROJECT, 4);
  t.same(await comments.pullRequest(repo, 4), { open: true, locked: false });
  const id = await comments.create(repo, 4, '<!-- m -->\none');
  t.equal(await comments.edit(repo, 4, id, '<!-- m -->\ntwo'), true);
  for (let i = 0; i < 230; i++) await comments.create(repo, 4, `note ${i}`);
  await other(4, 'a reviewer');
  const own = await comments.listOwn(repo, 4);
  t.equal(own.length, 231, 'every page read (231 own notes and one of another user: three pages of 100)');
  t.equal(own[0]!.body, '<!-- m -->\ntwo');
  t.notOk(
    own.some((c) => c.body === 'a reviewer'),
    "another user's note is not the bridge's",
  );
  const reads = sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/merge_requests/4/notes'));
  t.same(
    reads.map((r) => r.query.page),
    ['1', '2', '3'],
  );
  t.equal(sim.noteWrites().length, 233, "231 own and one of another user's, plus the edit");
  t.same(sim.violations, [], 'every request and answer matched the OpenAPI slice');
});

t.test("only the author edits: another user's note is a refusal; a deleted note is false", async (t) => {
  const { sim, comments, other } = await side(t);
  sim.mergeRequest(PROJECT, 5);
  const theirs = await other(5, 'theirs');
  await t.rejects(comments.edit(repo, 5, theirs, 'mine now'), { name: 'CommentRefused', reason: /forbidden.*api scope/ });
  t.equal(await comments.edit(repo, 5, 424242, 'x'), false);
  t.equal(sim.notes(PROJECT, 5)[0]!.body, 'theirs');
});

t.test('merge request states: missing, locked, closed, merged', async (t) => {
  const { sim, comments } = await side(t);
  await t.rejects(comments.pullRequest(repo, 9), { name: 'CommentRefused', reason: /not found \(404 Merge Request Not Found\)/ });
  await t.rejects(comments.create(repo, 9, 'x'), CommentRefused);
  sim.mergeRequest(PROJECT, 6, { discussionLocked: true });
  t.same(await comments.pullRequest(repo, 6), { open: true, locked: true });
  await t.rejects(comments.create(repo, 6, 'x'), { name: 'CommentRefused', reason: /forbidden/ });
  sim.member = true;
  t.ok(await comments.create(repo, 6, 'x'), 'a member still comments on a locked discussion');
  sim.mergeRequest(PROJECT, 7, { state: 'locked' });
  t.same(await comments.pullRequest(repo, 7), { open: false, locked: true });
  sim.mergeRequest(PROJECT, 8, { state: 'closed' });
  t.same(await comments.pullRequest(repo, 8), { open: false, locked: false });
  sim.mergeRequest(PROJECT, 10, { state: 'merged' });
  t.same(await comments.pullRequest(repo, 10), { open: false, locked: false });
  await t.rejects(comments.create(repo, 8, ''), { name: 'CommentRefused', reason: /400/ });
});

t.test('outages and throttling are retried, not skipped', async (t) => {
  const { sim, comments } = await side(t);
  sim.mergeRequest(PROJECT, 4);
  sim.inject({ method: 'POST', path: /\/notes$/, status: 502, body: { message: '502 Bad Gateway' } });
  const err = await comments.create(repo, 4, 'x').catch((e: unknown) => e);
  t.ok(err instanceof ForgeError && !(err instanceof CommentRefused), 'a 502 is a ForgeError for the queue');
  t.equal(sim.notes(PROJECT, 4).length, 0);
  sim.inject({ method: 'GET', path: /\/notes$/, ...rateLimitFault({}) });
  const throttled = await comments.listOwn(repo, 4).catch((e: unknown) => e);
  t.ok(throttled instanceof ForgeError && !(throttled instanceof CommentRefused), 'a 429 is retried');
});

t.test('PULL_REQUEST_LOOKUP: the open merge request whose head is the commit', async (t) => {
  const { sim, comments } = await side(t);
  t.equal(await comments.pullRequestOfCommit!(repo, SHA), null);
  sim.mergeRequest(PROJECT, 3, { sha: SHA, state: 'merged' });
  sim.mergeRequest(PROJECT, 12, { sha: SHA });
  sim.mergeRequest(PROJECT, 11, { sha: SHA });
  sim.mergeRequest(PROJECT, 2, { sha: 'd'.repeat(40) });
  t.equal(await comments.pullRequestOfCommit!(repo, SHA), 11);
  t.same(sim.violations, []);
});

t.test('refusal reasons (table)', (t) => {
  const cases: Array<[ForgeError | Error, RegExp | undefined]> = [
    [new ForgeError('x', 404, { forgeMessage: '404 Merge Request Not Found' }), /not found/],
    [new ForgeError('x', 403, { forgeMessage: 'discussion is locked' }), /locked/],
    [new ForgeError('x', 403), /api scope/],
    [new ForgeError('x', 400, { forgeMessage: "note can't be blank" }), /refused/],
    [new ForgeError('x', 401), undefined],
    [new ForgeError('x', 429, { retryAt: 1 }), undefined],
    [new ForgeError('x', 503), undefined],
    [new ForgeError('x'), undefined],
    [new Error('x'), undefined],
  ];
  for (const [err, want] of cases) {
    const got = gitlabCommentRefusalOf(err, 'comment');
    if (want === undefined) t.equal(got, undefined, err.message);
    else t.match(got, want);
  }
  t.end();
});
