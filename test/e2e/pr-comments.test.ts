/** Pull request comments end to end on GitHub: one comment per pull request and cluster, kept current, never duplicated. */
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MAIN_JS } from '../harness/bridge-process.js';
import { startWorld, type World } from '../harness/world.js';
import { PROGRESSING, READY } from './scenario.js';
import {
  ENV,
  TWO_CLUSTER_MARKERS,
  event,
  idle,
  putPreview,
  putPreviewWorkload,
  restartAfterCrash,
  twoClusterMarkers,
  type CrashPoint,
} from './pr-comments-scenario.js';

async function previewWorld(t: Test): Promise<World> {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.github.pullRequest('acme', 'web', 12);
  putPreviewWorkload(world, 'acme/web');
  return world;
}

const bodies = (world: World) => world.github.comments('acme', 'web', 12).map((c) => c.body);

t.test('one comment: rolling out, edited to live with its link, edited to gone; repeated events write nothing', async (t) => {
  const world = await previewWorld(t);
  putPreview(world, PROGRESSING);
  const bridge = await world.bridge(ENV);
  await event(bridge);
  await bridge.waitFor('the comment', () => bodies(world)[0]?.includes('rolling out'));
  t.notMatch(bodies(world)[0], /https:\/\/pr-12/, 'no link while rolling out');

  putPreview(world, READY);
  await event(bridge);
  await bridge.waitFor('live', () => bodies(world)[0]?.includes('| live |'));
  t.match(bodies(world)[0], /\[pr\\-12\.preview\.example\.com\]\(https:\/\/pr-12\.preview\.example\.com\/\)/);
  t.match(bodies(world)[0], /^<!-- github-deployment-bridge:cluster=sim-cluster -->\n/);
  const state = await idle(bridge);
  t.match(state.deployments, [{ environment: 'pr-12', pullRequest: { number: 12, why: /change_request/ } }], '/state: the row and why');
  t.match(state.pullRequestComments, [{ repository: 'acme/web', pullRequest: 12, cluster: 'sim-cluster', due: false, skipReason: null }]);
  const env = Object.fromEntries(Object.entries(world.env()).filter(([name]) => !['WEBHOOK_TOKEN', 'GITHUB_TOKEN'].includes(name)));
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN_JS, 'explain', 'Kustomization/flux-system/web-pr-12'], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  t.match(
    stdout,
    /pull request #12 comment row \(from the Flux object's event\.toolkit\.fluxcd\.io\/change_request annotation\)/,
    'explain: which and why',
  );

  const writes = world.github.commentWrites().length;
  t.equal(writes, 2, 'one create, one edit');
  for (let i = 0; i < 20; i++) await event(bridge);
  await idle(bridge);
  t.equal(world.github.commentWrites().length, writes, '20 repeated events: no comment write');

  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web-pr-12');
  await bridge.waitFor('gone', () => bodies(world)[0]?.includes('The preview is gone'), 30_000);
  t.notMatch(bodies(world)[0], /https:\/\/pr-12/, 'no link once gone');
  t.equal(world.github.comments('acme', 'web', 12).length, 1, 'edited, never a second comment');
  await idle(bridge);
  // The minimum for a preview that is seen rolling out, live and gone: one create and two edits (BENCHMARKS.md).
  t.equal(world.github.commentWrites().length, 3, 'three comment writes for the whole preview lifecycle');
  const reads = world.github.requests.filter((r) => r.method === 'GET' && /\/issues\/12(\/comments)?$/.test(r.path));
  t.equal(reads.length, 1, 'one read: the pull request, before the create');
  t.same(world.github.violations, [], 'every request matched the OpenAPI slices');
});

const CRASHES: CrashPoint[] = [
  { name: 'before the create is applied', method: 'POST', path: /\/issues\/12\/comments$/, when: 'before', readyFirst: true },
  { name: 'after the create, before its answer', method: 'POST', path: /\/issues\/12\/comments$/, when: 'after', readyFirst: true },
  { name: 'after an edit, before its answer', method: 'PATCH', path: /\/issues\/comments\/\d+$/, when: 'after', readyFirst: false },
];

for (const crash of CRASHES) {
  t.test(`a restart ${crash.name}: no second comment`, async (t) => {
    const world = await previewWorld(t);
    await restartAfterCrash(world, world.github, crash, () => bodies(world));
    t.equal(world.github.comments('acme', 'web', 12).length, 1, 'exactly one comment');
    if (crash.method === 'POST')
      t.ok(
        world.github.requests.some((r) => r.method === 'GET' && /\/issues\/12\/comments$/.test(r.path)),
        'after the restart it looked for its comment before making one',
      );
    t.same(world.github.violations, []);
  });
}

t.test('two clusters: two comments on the same pull request', async (t) => {
  const world = await previewWorld(t);
  t.same(await twoClusterMarkers(world, () => bodies(world)), TWO_CLUSTER_MARKERS);
  t.same(world.github.violations, []);
});
