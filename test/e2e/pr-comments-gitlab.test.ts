/** Pull request comments end to end on GitLab: one merge request note per merge request and cluster, kept current, never duplicated. */
import t, { type Test } from 'tap';
import { startWorld } from '../harness/world.js';
import { COMMIT, putPreviewWorkload } from './pr-comments-scenario.js';
import { previewLifecycle, restartCases, twoClusters, type CommentSide, type CrashPoint } from './pr-comments-cases.js';

const PROJECT = 'acme/web';
const NOTES_LIST = /\/merge_requests\/12\/notes$/;

async function gitlab(t: Test): Promise<CommentSide> {
  const world = await startWorld({ gitlab: true, githubOff: true });
  t.teardown(() => world.close());
  const sim = world.gitlab!;
  sim.mergeRequest(PROJECT, 12, { sha: COMMIT });
  putPreviewWorkload(world, `${sim.url}/${PROJECT}`);
  return { world, sim, bodies: () => sim.notes(PROJECT, 12).map((n) => n.body), writes: () => sim.noteWrites().length, noun: 'note' };
}

t.test('GitLab: one note from rolling out to live to gone; repeated events write nothing', async (t) => {
  const side = await gitlab(t);
  const sim = side.world.gitlab!;
  await previewLifecycle(t, side);
  t.same(
    sim.noteWrites().map((r) => r.method),
    ['POST', 'PUT', 'PUT'],
    'a create, then edits in place',
  );
  const reads = sim.requests.filter((r) => r.method === 'GET' && /\/merge_requests\/12(\/notes)?$/.test(r.path));
  t.equal(reads.length, 1, 'one read: the merge request, before the create');
  t.same(sim.violations, [], 'every request matched the OpenAPI slice');
});

const CRASHES: CrashPoint[] = [
  { name: 'before the create is applied', method: 'POST', path: NOTES_LIST, when: 'before', readyFirst: true },
  { name: 'after the create, before its answer', method: 'POST', path: NOTES_LIST, when: 'after', readyFirst: true },
  { name: 'after an edit, before its answer', method: 'PUT', path: /\/merge_requests\/12\/notes\/\d+$/, when: 'after', readyFirst: false },
];

restartCases(t, CRASHES, NOTES_LIST, (crash) => `GitLab: a restart ${crash.name}: no second note`, gitlab);

t.test('GitLab: two clusters, two notes on the same merge request', async (t) => twoClusters(t, await gitlab(t)));
