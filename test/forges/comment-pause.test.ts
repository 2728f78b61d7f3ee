/**
 * On Forgejo and GitLab, a wait a forge asks of a pull request comment (a 429 with Retry-After) pauses the token's
 * comments only: its deployment work goes on, and comments wait for the token's own pauses as before.
 */
import t from 'tap';
import { retryAfterFault } from '../harness/forgejo-sim.js';
import { forgejoSide, gitlabSide } from './side-rigs.js';

const repo = { owner: 'acme', repo: 'web' };
/** Not sent: held back by a pause (the gate's ForgeError, its cause the ForgePaused). */
const paused = (scope: string) => ({ notSent: true, cause: { name: 'ForgePaused', pause: { scope } } }) as never;

t.test('Forgejo: a 429 on a comment pauses comments, not commit statuses', async (t) => {
  const { sim, side } = await forgejoSide(t, 'tok', { repos: ['acme/web'], login: 'deploy-bridge' });
  sim.pullRequest('acme', 'web', 4);
  sim.inject({ method: 'POST', path: '/issues/4/comments', ...retryAfterFault(600) });
  await t.rejects(side.comments.create(repo, 4, 'x'), { status: 429 } as never);
  t.equal(side.health.pausedUntil('token'), null, "the token's work is not paused");
  t.match(side.health.snapshot().pauses, [{ scope: 'token (comments)' }]);
  await t.rejects(side.comments.create(repo, 4, 'y'), paused('token (comments)'), 'the next comment waits');
  const sha = 'c'.repeat(40);
  await side.port.createStatus(repo, sha, { state: 'success', context: 'deploy/x', description: 'ok', target_url: '' });
  t.pass('a commit status goes during the comment pause');
  sim.inject({ method: 'POST', path: '/statuses/', ...retryAfterFault(600) });
  await t.rejects(side.port.createStatus(repo, sha, { state: 'success', context: 'deploy/y', description: 'ok', target_url: '' }));
  await t.rejects(
    side.comments.pullRequest(repo, 4),
    { notSent: true, cause: { name: 'ForgePaused' } },
    "a token's pause holds comments back too",
  );
});

t.test('GitLab: a 429 on a note pauses notes, not deployments', async (t) => {
  const { sim, side } = await gitlabSide(t, 'tok', {});
  sim.mergeRequest('acme/web', 4);
  sim.inject({ method: 'POST', path: '/notes', ...retryAfterFault(600) });
  await t.rejects(side.comments.create(repo, 4, 'x'), { status: 429 } as never);
  t.equal(side.health.pausedUntil('token'), null, "the token's work is not paused");
  await t.rejects(side.comments.create(repo, 4, 'y'), paused('token (comments)'), 'the next note waits');
  t.equal((await side.port.project('acme/web')).path_with_namespace, 'acme/web', 'the project is read during the pause');
});
