/** Pull request comments end to end on GitHub: one comment per pull request and cluster, kept current, never duplicated. */
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MAIN_JS } from '../harness/bridge-process.js';
import { startWorld } from '../harness/world.js';
import { putPreviewWorkload } from './pr-comments-scenario.js';
import { previewLifecycle, restartCases, twoClusters, type CommentSide, type CrashPoint } from './pr-comments-cases.js';

async function github(t: Test): Promise<CommentSide> {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.github.pullRequest('acme', 'web', 12);
  putPreviewWorkload(world, 'acme/web');
  return {
    world,
    sim: world.github,
    bodies: () => world.github.comments('acme', 'web', 12).map((c) => c.body),
    writes: () => world.github.commentWrites().length,
    noun: 'comment',
  };
}

t.test('one comment: rolling out, edited to live with its link, edited to gone; repeated events write nothing', async (t) => {
  const side = await github(t);
  const { world } = side;
  await previewLifecycle(t, side, async (bridge) => {
    t.match(side.bodies()[0], /\[pr\\-12\.preview\.example\.com\]\(https:\/\/pr-12\.preview\.example\.com\/\)/);
    t.match(side.bodies()[0], /^<!-- github-deployment-bridge:cluster=sim-cluster -->\n/);
    const state = await bridge.state();
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
  });
  const reads = world.github.requests.filter((r) => r.method === 'GET' && /\/issues\/12(\/comments)?$/.test(r.path));
  t.equal(reads.length, 1, 'one read: the pull request, before the create');
  t.same(world.github.violations, [], 'every request matched the OpenAPI slices');
});

const CRASHES: CrashPoint[] = [
  { name: 'before the create is applied', method: 'POST', path: /\/issues\/12\/comments$/, when: 'before', readyFirst: true },
  { name: 'after the create, before its answer', method: 'POST', path: /\/issues\/12\/comments$/, when: 'after', readyFirst: true },
  { name: 'after an edit, before its answer', method: 'PATCH', path: /\/issues\/comments\/\d+$/, when: 'after', readyFirst: false },
];

restartCases(t, CRASHES, /\/issues\/12\/comments$/, (crash) => `a restart ${crash.name}: no second comment`, github);

t.test('two clusters: two comments on the same pull request', async (t) => twoClusters(t, await github(t)));
