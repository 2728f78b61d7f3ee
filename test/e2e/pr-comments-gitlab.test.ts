/** Pull request comments end to end on GitLab: one merge request note per merge request and cluster, kept current, never duplicated. */
import t, { type Test } from 'tap';
import type { GitLabSimulator } from '../harness/gitlab-sim.js';
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

const PROJECT = 'acme/web';

async function gitlabWorld(t: Test): Promise<{ world: World; gitlab: GitLabSimulator }> {
  const world = await startWorld({ gitlab: true, githubOff: true });
  t.teardown(() => world.close());
  const gitlab = world.gitlab!;
  gitlab.mergeRequest(PROJECT, 12);
  putPreviewWorkload(world, `${gitlab.url}/${PROJECT}`);
  return { world, gitlab };
}

const bodies = (g: GitLabSimulator) => g.notes(PROJECT, 12).map((n) => n.body);
const NOTES_LIST = /\/merge_requests\/12\/notes$/;

t.test('GitLab: one note from rolling out to live to gone; repeated events write nothing', async (t) => {
  const { world, gitlab } = await gitlabWorld(t);
  putPreview(world, PROGRESSING);
  const bridge = await world.bridge(ENV);
  await event(bridge);
  await bridge.waitFor('the note', () => bodies(gitlab)[0]?.includes('rolling out'));
  t.notMatch(bodies(gitlab)[0], /https:\/\/pr-12/, 'no link while rolling out');
  putPreview(world, READY);
  await event(bridge);
  await bridge.waitFor('live', () => bodies(gitlab)[0]?.includes('| live |'));
  t.match(bodies(gitlab)[0], /\(https:\/\/pr-12\.preview\.example\.com\/\)/);
  t.match(bodies(gitlab)[0], /^<!-- github-deployment-bridge:cluster=/, 'the marker, hidden as an HTML comment');
  await idle(bridge);
  const writes = gitlab.noteWrites().length;
  t.equal(writes, 2, 'one create, one edit');
  for (let i = 0; i < 20; i++) await event(bridge);
  await idle(bridge);
  t.equal(gitlab.noteWrites().length, writes, '20 repeated events: no note write');
  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web-pr-12');
  await bridge.waitFor('gone', () => bodies(gitlab)[0]?.includes('The preview is gone'), 30_000);
  t.notMatch(bodies(gitlab)[0], /https:\/\/pr-12/, 'no link once gone');
  t.equal(gitlab.notes(PROJECT, 12).length, 1, 'edited, not deleted, never a second note');
  await idle(bridge);
  // The minimum for a preview seen rolling out, live and gone: one create and two edits (as on GitHub).
  t.equal(gitlab.noteWrites().length, 3, 'three note writes for the whole preview lifecycle');
  t.same(
    gitlab.noteWrites().map((r) => r.method),
    ['POST', 'PUT', 'PUT'],
    'a create, then edits in place',
  );
  const reads = gitlab.requests.filter((r) => r.method === 'GET' && /\/merge_requests\/12(\/notes)?$/.test(r.path));
  t.equal(reads.length, 1, 'one read: the merge request, before the create');
  t.same(gitlab.violations, [], 'every request matched the OpenAPI slice');
});

const CRASHES: CrashPoint[] = [
  { name: 'before the create is applied', method: 'POST', path: NOTES_LIST, when: 'before', readyFirst: true },
  { name: 'after the create, before its answer', method: 'POST', path: NOTES_LIST, when: 'after', readyFirst: true },
  { name: 'after an edit, before its answer', method: 'PUT', path: /\/merge_requests\/12\/notes\/\d+$/, when: 'after', readyFirst: false },
];

for (const crash of CRASHES) {
  t.test(`GitLab: a restart ${crash.name}: no second note`, async (t) => {
    const { world, gitlab } = await gitlabWorld(t);
    await restartAfterCrash(world, gitlab, crash, () => bodies(gitlab));
    t.equal(gitlab.notes(PROJECT, 12).length, 1, 'exactly one note');
    if (crash.method === 'POST')
      t.ok(
        gitlab.requests.some((r) => r.method === 'GET' && NOTES_LIST.test(r.path)),
        'after the restart it looked for its note before making one',
      );
    t.same(gitlab.violations, []);
  });
}

t.test('GitLab: two clusters, two notes on the same merge request', async (t) => {
  const { world, gitlab } = await gitlabWorld(t);
  t.same(await twoClusterMarkers(world, () => bodies(gitlab)), TWO_CLUSTER_MARKERS);
  t.same(gitlab.violations, []);
});
