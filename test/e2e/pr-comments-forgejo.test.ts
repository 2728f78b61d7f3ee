/** Pull request comments end to end on Forgejo: one issue comment per pull request and cluster, kept current, never duplicated. */
import t, { type Test } from 'tap';
import { startWorld } from '../harness/world.js';
import { READY } from './scenario.js';
import { COMMIT, ENV, crashAt, event, idle, putPreview, putPreviewWorkload } from './pr-comments-scenario.js';
import { previewLifecycle, type CommentSide } from './pr-comments-cases.js';

async function forgejo(t: Test): Promise<CommentSide> {
  const world = await startWorld({ forgejo: { repos: ['acme/web'], commits: { 'acme/web': [COMMIT] } }, githubOff: true });
  t.teardown(() => world.close());
  const sim = world.forgejo!;
  sim.pullRequest('acme', 'web', 12, { head: COMMIT });
  putPreviewWorkload(world, `${sim.url}/acme/web`);
  return {
    world,
    sim,
    bodies: () => sim.comments('acme', 'web', 12).map((c) => c.body),
    writes: () => sim.commentWrites().length,
    noun: 'comment',
  };
}

t.test('Forgejo: one comment from rolling out to live to gone; repeated events write nothing', async (t) => {
  const side = await forgejo(t);
  await previewLifecycle(t, side);
  t.same(side.sim.violations, [], 'every request matched the swagger slices');
});

t.test('Forgejo: a restart after the create, before its answer: no second comment', async (t) => {
  const { world, bodies } = await forgejo(t);
  const sim = world.forgejo!;
  putPreview(world, READY);
  const first = await world.bridge(ENV);
  await crashAt(sim, first, { method: 'POST', path: /\/issues\/12\/comments$/, when: 'after' });
  const second = await world.bridge(ENV);
  await event(second);
  await idle(second);
  await second.waitFor('settled', () => sim.requests.some((r) => r.method === 'GET' && /\/issues\/12\/comments$/.test(r.path)));
  t.equal(bodies().length, 1, 'exactly one comment');
  t.match(bodies()[0], /\| live \|/);
  t.same(sim.violations, []);
});
