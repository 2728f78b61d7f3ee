/** Pull request comments end to end on GitHub: one comment per pull request and cluster, kept current, never duplicated. */
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MAIN_JS } from '../harness/bridge-process.js';
import { startWorld } from '../harness/world.js';
import { COMMIT, ENV, event, idle, putPreview, putPreviewWorkload } from './pr-comments-scenario.js';
import { kustomization } from '../harness/flux-objects.js';
import { OPT_IN, putDeployment, READY, sha } from './scenario.js';
import { previewLifecycle, restartCases, twoClusters, type CommentSide, type CrashPoint } from './pr-comments-cases.js';

async function github(t: Test): Promise<CommentSide> {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.github.pullRequest('acme', 'web', 12, { head: COMMIT });
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

t.test(
  "a foreign pull request URL: refused, the reason in /state and explain; nothing written on the deployment repository's #77",
  async (t) => {
    const world = await startWorld();
    t.teardown(() => world.close());
    // The attack: the bridge used to keep the number alone, and comment on acme/web#77.
    world.github.pullRequest('acme', 'web', 77, { head: COMMIT });
    world.kube.put(
      kustomization({
        namespace: 'flux-system',
        name: 'web-pr-12',
        conditions: READY,
        inventory: [{ namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' }],
      }),
    );
    putDeployment(world, 'web', 'registry.invalid/acme/web:1.4.0', {
      ...OPT_IN,
      'github-deployment-bridge.io/repository': 'acme/web',
      'github-deployment-bridge.io/commit': COMMIT,
      'github-deployment-bridge.io/environment': 'pr-12',
      'github-deployment-bridge.io/pull-request': 'https://github.com/other-org/other/pull/77',
    });
    const bridge = await world.bridge(ENV);
    await event(bridge);
    const state = await bridge.waitFor('the skip', async () => {
      const s = await idle(bridge);
      return s.skipped.length > 0 && s;
    });
    t.match(state.skipped, [{ code: 'bad_pull_request', reason: /other-org\/other.*another repository than acme\/web: refused/ }]);
    t.match(state.deployments, [{ environment: 'pr-12', state: 'success' }], 'the deployment itself is reported');
    t.equal(world.github.comments('acme', 'web', 77).length, 0, 'no comment on acme/web#77');
    t.equal(world.github.commentWrites().length, 0);
    const env = Object.fromEntries(Object.entries(world.env()).filter(([name]) => !['WEBHOOK_TOKEN', 'GITHUB_TOKEN'].includes(name)));
    const { stdout } = await promisify(execFile)(process.execPath, [MAIN_JS, 'explain', 'Kustomization/flux-system/web-pr-12'], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    t.match(stdout, /no pull request comment row: .*another repository than acme\/web: refused/, 'explain says why');
    t.same(world.github.violations, []);
  },
);

t.test('a pull request whose head is another commit: no comment, the reason in /state', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.github.pullRequest('acme', 'web', 12, { head: sha('someone-elses-work') });
  putPreviewWorkload(world, 'acme/web');
  putPreview(world, READY);
  const bridge = await world.bridge(ENV);
  await event(bridge);
  const state = await bridge.waitFor('the skip', async () => {
    const s = await bridge.state();
    return s.pullRequestComments?.[0]?.skipReason?.includes('is not on pull request #12') === true && s;
  });
  t.match(state.deployments, [{ environment: 'pr-12', pullRequest: { number: 12, leftOut: /is not on pull request #12 of acme\/web/ } }]);
  t.equal(world.github.comments('acme', 'web', 12).length, 0, 'no comment');
  t.same(world.github.violations, []);
});
