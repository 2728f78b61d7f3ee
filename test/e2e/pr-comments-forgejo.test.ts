/** Pull request comments end to end on Forgejo: one issue comment per pull request and cluster, kept current, never duplicated. */
import t, { type Test } from 'tap';
import { startWorld, type World } from '../harness/world.js';
import type { ForgejoSimulator } from '../harness/forgejo-sim.js';
import { PROGRESSING, READY } from './scenario.js';
import { COMMIT, ENV, crashAt, event, idle, putPreview, putPreviewWorkload } from './pr-comments-scenario.js';

async function forgejoWorld(t: Test): Promise<{ world: World; forgejo: ForgejoSimulator }> {
  const world = await startWorld({ forgejo: { repos: ['acme/web'], commits: { 'acme/web': [COMMIT] } }, githubOff: true });
  t.teardown(() => world.close());
  const forgejo = world.forgejo!;
  forgejo.pullRequest('acme', 'web', 12);
  putPreviewWorkload(world, `${forgejo.url}/acme/web`);
  return { world, forgejo };
}

const bodies = (f: ForgejoSimulator) => f.comments('acme', 'web', 12).map((c) => c.body);

t.test('Forgejo: one comment from rolling out to live to gone; repeated events write nothing', async (t) => {
  const { world, forgejo } = await forgejoWorld(t);
  putPreview(world, PROGRESSING);
  const bridge = await world.bridge(ENV);
  await event(bridge);
  await bridge.waitFor('the comment', () => bodies(forgejo)[0]?.includes('rolling out'));
  putPreview(world, READY);
  await event(bridge);
  await bridge.waitFor('live', () => bodies(forgejo)[0]?.includes('| live |'));
  t.match(bodies(forgejo)[0], /\(https:\/\/pr-12\.preview\.example\.com\/\)/);
  await idle(bridge);
  const writes = forgejo.commentWrites().length;
  t.equal(writes, 2);
  for (let i = 0; i < 20; i++) await event(bridge);
  await idle(bridge);
  t.equal(forgejo.commentWrites().length, writes, '20 repeated events: no comment write');
  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web-pr-12');
  await bridge.waitFor('gone', () => bodies(forgejo)[0]?.includes('The preview is gone'), 30_000);
  t.equal(forgejo.comments('acme', 'web', 12).length, 1);
  t.same(forgejo.violations, [], 'every request matched the swagger slices');
});

t.test('Forgejo: a restart after the create, before its answer: no second comment', async (t) => {
  const { world, forgejo } = await forgejoWorld(t);
  putPreview(world, READY);
  const first = await world.bridge(ENV);
  await crashAt(forgejo, first, { method: 'POST', path: /\/issues\/12\/comments$/, when: 'after' });
  const second = await world.bridge(ENV);
  await event(second);
  await idle(second);
  await second.waitFor('settled', () => forgejo.requests.some((r) => r.method === 'GET' && /\/issues\/12\/comments$/.test(r.path)));
  t.equal(forgejo.comments('acme', 'web', 12).length, 1, 'exactly one comment');
  t.match(bodies(forgejo)[0], /\| live \|/);
  t.same(forgejo.violations, []);
});
