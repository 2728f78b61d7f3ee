/**
 * GitLab end to end: the real bridge process against the GitLab simulator (every request checked
 * against GitLab's OpenAPI description) and the fake Kubernetes API, with a GitLab-only bridge (no
 * GitHub credentials). Repository and commit are annotated; the project path nests (`platform/team/shop`).
 */
import t, { type Test } from 'tap';
import type { BridgeProcess } from '../harness/bridge-process.js';
import { fluxEvent } from '../harness/bridge-process.js';
import { rateLimitFault, type GitLabSimulator } from '../harness/gitlab-sim.js';
import { queueIdle } from '../harness/state-body.js';
import { startWorld, type World } from '../harness/world.js';
import { HEALTH_FAILED, OPT_IN, PROGRESSING, READY, putDeployment, putKustomization, sha } from './scenario.js';

const A = sha('gitlab-a');
const PROJECT = 'platform/team/shop';

async function gitlabWorld(t: Test): Promise<{ world: World; gitlab: GitLabSimulator }> {
  const world = await startWorld({ gitlab: true, githubOff: true });
  t.teardown(() => world.close());
  if (world.gitlab === undefined) throw new Error('no GitLab');
  return { world, gitlab: world.gitlab };
}

/** The Deployment `name` of PROJECT at commit A in `environment`, the only workload of Kustomization `source`. */
function putShop(
  world: World,
  gitlab: GitLabSimulator,
  conditions = READY,
  o = { name: 'shop', environment: 'staging/shop', source: 'apps' },
): void {
  putDeployment(world, o.name, `registry.invalid/platform/shop:${A.slice(0, 7)}`, {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': `${gitlab.url}/${PROJECT}`,
    'github-deployment-bridge.io/commit': A,
    'github-deployment-bridge.io/environment': o.environment,
  });
  putKustomization(world, o.source, [o.name], conditions);
}

async function event(bridge: BridgeProcess, reason = 'ReconciliationSucceeded'): Promise<void> {
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps', { reason }))).status, 202);
}

async function settle(bridge: BridgeProcess): Promise<void> {
  await bridge.waitFor('queue idle', async () => {
    const s = await bridge.state();
    return s.fluxObjects.length > 0 && queueIdle(s);
  });
}

const deployments = (gitlab: GitLabSimulator) => gitlab.project(PROJECT)?.deployments ?? [];

t.test('a rollout: one deployment, running then success, ref = branch; nothing new: no writes', async (t) => {
  const { world, gitlab } = await gitlabWorld(t);
  putShop(world, gitlab, PROGRESSING);
  const bridge = await world.bridge({ ALLOWED_REPOSITORIES: `${new URL(gitlab.url).host}/platform/*` });
  await event(bridge, 'Progressing');
  await bridge.waitFor('running', () => deployments(gitlab).length === 1 && deployments(gitlab)[0]?.status === 'running');
  putShop(world, gitlab, READY);
  await event(bridge);
  await bridge.waitFor('success', () => deployments(gitlab)[0]?.status === 'success');
  t.same(
    deployments(gitlab).map((d) => [d.ref, d.sha, d.status]),
    [['main', A, 'success']],
  );
  await settle(bridge);
  const before = gitlab.writes().length;
  await event(bridge);
  await settle(bridge);
  t.equal(gitlab.writes().length, before, 'a second event with nothing new writes nothing');
  t.match(await bridge.metrics(), /gdb_forge_requests_total\{forge="gitlab",operation="createDeployment",status="201"\} 1/);
  t.same(gitlab.violations, []);
});

t.test('a failure then success updates the same deployment; a 429 pauses and then goes through', async (t) => {
  const { world, gitlab } = await gitlabWorld(t);
  gitlab.inject({ method: 'POST', path: '/deployments', ...rateLimitFault({ retryAfterSeconds: 1 }) });
  putShop(world, gitlab, HEALTH_FAILED);
  const bridge = await world.bridge();
  await event(bridge, 'HealthCheckFailed');
  await bridge.waitFor('failed', () => deployments(gitlab)[0]?.status === 'failed', 30_000);
  t.ok(
    gitlab.requests.some((r) => r.status === 429),
    'the 429 was answered',
  );
  putShop(world, gitlab, READY);
  await event(bridge);
  await bridge.waitFor('success', () => deployments(gitlab)[0]?.status === 'success');
  t.equal(deployments(gitlab).length, 1, 'the same deployment');
  t.same(gitlab.violations, []);
});

t.test('a crash between the create and the status: no duplicate after the restart', async (t) => {
  const { world, gitlab } = await gitlabWorld(t);
  putShop(world, gitlab, READY);
  const first = await world.bridge();
  gitlab.hook({
    method: 'POST',
    path: '/deployments',
    when: 'after',
    run: async () => {
      await first.kill('SIGKILL');
      return 'drop' as const;
    },
  });
  await event(first);
  await first.waitFor('killed', () => deployments(gitlab).length === 1);
  await first.kill('SIGKILL'); // the create is applied before the hook's kill ends the process: wait for the exit
  const second = await world.bridge();
  await event(second);
  await settle(second);
  t.same(
    deployments(gitlab).map((d) => d.status),
    ['success'],
    'the created deployment was found and kept',
  );
  t.ok(
    gitlab.requests.some((r) => r.method === 'GET' && r.path.endsWith('/deployments') && r.query.environment === 'staging/shop'),
    "recovery listed the environment's deployments before creating",
  );
  t.same(gitlab.violations, []);
});

t.test('a restart between the deploy and the cleanup: the closed preview is still stopped, once', async (t) => {
  const { world, gitlab } = await gitlabWorld(t);
  putShop(world, gitlab, READY, { name: 'shop-pr-42', environment: 'review/pr-42', source: 'preview-42' });
  const env = { TRANSIENT_ENVIRONMENTS: 'review/*', CLEANUP_GRACE: '1s', RESYNC_INTERVAL: '2s' };
  const first = await world.bridge(env);
  t.equal((await first.post(fluxEvent('Kustomization', 'flux-system', 'preview-42', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await first.waitFor('preview live', () => deployments(gitlab)[0]?.status === 'success');
  await first.kill('SIGTERM');

  const second = await world.bridge(env);
  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'preview-42');
  world.kube.delete('apps/v1', 'Deployment', 'apps', 'shop-pr-42');
  t.equal((await second.post(fluxEvent('Kustomization', 'flux-system', 'preview-42', { reason: 'ReconciliationSucceeded' }))).status, 202);
  const environment = () => gitlab.project(PROJECT)?.environments.find((e) => e.name === 'review/pr-42');
  await second.waitFor('stopped', () => environment()?.state === 'stopped', 30_000);
  // Another event for the deleted preview: nothing stops it again.
  t.equal((await second.post(fluxEvent('Kustomization', 'flux-system', 'preview-42', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await settle(second);
  t.equal(gitlab.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/stop')).length, 1, 'stopped once');
  t.same(gitlab.violations, []);
});
