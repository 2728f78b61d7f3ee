/**
 * Where a forge lives, end to end: GitLab (under a sub-path) and Forgejo on one host name, apart by port; each
 * workload's repository reaches its own forge and project, a URL outside GitLab's base path is skipped with a
 * reason, and an ALLOWED_REPOSITORIES pattern names a forge by host and port.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { queueIdle } from '../harness/state-body.js';
import { startWorld } from '../harness/world.js';
import { OPT_IN, READY, putDeployment, putKustomization, sha } from './scenario.js';

const A = sha('location-a');

t.test('two forges on one host name, GitLab under a sub-path: each repository reaches its own forge and project', async (t) => {
  const world = await startWorld({ githubOff: true, forgejo: { repos: ['acme/shop'] }, gitlab: { pathPrefix: '/gitlab' } });
  t.teardown(() => world.close());
  const { forgejo, gitlab } = world;
  if (forgejo === undefined || gitlab === undefined) throw new Error('both forges are needed');
  t.equal(new URL(gitlab.url).hostname, new URL(forgejo.url).hostname, 'one host name');
  const app = (name: string, repository: string) =>
    putDeployment(world, name, `registry.invalid/${name}:1`, {
      ...OPT_IN,
      'github-deployment-bridge.io/repository': repository,
      'github-deployment-bridge.io/commit': A,
      'github-deployment-bridge.io/environment': 'staging',
    });
  app('shop', `${gitlab.url}/platform/team/shop`);
  app('store', `${forgejo.url}/acme/shop.git`);
  app('stray', `${new URL(gitlab.url).origin}/platform/team/stray`);
  putKustomization(world, 'apps', ['shop', 'store', 'stray'], READY);
  const bridge = await world.bridge({ ALLOWED_REPOSITORIES: `${new URL(gitlab.url).host}/platform/*,${new URL(forgejo.url).host}/acme/*` });
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await bridge.waitFor('queue idle', async () => {
    const s = await bridge.state();
    return s.fluxObjects.length > 0 && queueIdle(s);
  });
  t.same(
    gitlab.project('platform/team/shop')?.deployments.map((d) => [d.sha, d.status]),
    [[A, 'success']],
    'GitLab: the project below its base path',
  );
  t.equal(gitlab.project('gitlab/platform/team/shop'), undefined, 'never the sub-path taken for a group');
  t.same(
    forgejo.statuses('acme', 'shop', A).map((s) => s.state),
    ['success'],
    'Forgejo: its own repository, on its own port',
  );
  const state = await bridge.state();
  t.match(state.skipped, [
    {
      code: 'bad_repository',
      reason: /platform\/team\/stray.* is on 127\.0\.0\.1:\d+ but not below 127\.0\.0\.1:\d+\/gitlab \(GITLAB_URL\)/,
    },
  ]);
  t.same(gitlab.violations, []);
  t.same(forgejo.violations, []);
});
