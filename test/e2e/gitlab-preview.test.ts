/**
 * A GitLab merge-request preview as Flux Operator's ResourceSets make it: the preview's Kustomization
 * carries `event.toolkit.fluxcd.io/branch`, the workload a tier. `explain` shows the ref and the tier
 * before anything is sent; the bridge then reports with that branch as `ref` (no commit-refs lookup)
 * and sets the tier on the environment.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { MAIN_JS, fluxEvent } from '../harness/bridge-process.js';
import { kustomization } from '../harness/flux-objects.js';
import { startWorld } from '../harness/world.js';
import { OPT_IN, READY, putDeployment, sha } from './scenario.js';

const A = sha('gitlab-mr-7');
const PROJECT = 'platform/team/shop';

t.test('explain a GitLab merge-request preview: ref from the Flux object, tier; the bridge sends them', async (t) => {
  const world = await startWorld({
    gitlab: { projects: [{ path: PROJECT, defaultBranch: 'main', branches: { main: [], 'feature/login': [A] } }] },
    githubOff: true,
  });
  t.teardown(() => world.close());
  const gitlab = world.gitlab;
  if (gitlab === undefined) throw new Error('no GitLab');
  const repository = `${gitlab.url}/${PROJECT}`;
  putDeployment(world, 'shop-mr-7', `registry.invalid/platform/shop:${A.slice(0, 7)}`, {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': repository,
    'github-deployment-bridge.io/commit': A,
    'github-deployment-bridge.io/environment': 'review/mr-7',
    'github-deployment-bridge.io/tier': 'development',
    'github-deployment-bridge.io/environment-url': 'https://mr-7.preview.example.com/',
  });
  putDeployment(world, 'worker-mr-7', `registry.invalid/platform/shop-worker:${A.slice(0, 7)}`, {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': repository,
    'github-deployment-bridge.io/commit': A,
    'github-deployment-bridge.io/environment': 'review/mr-7-worker',
    'github-deployment-bridge.io/ref': 'not a ref',
  });
  world.kube.put(
    kustomization({
      name: 'preview-mr-7',
      annotations: { 'event.toolkit.fluxcd.io/branch': 'feature/login' },
      conditions: READY,
      inventory: [
        { namespace: 'apps', name: 'shop-mr-7', group: 'apps', kind: 'Deployment' },
        { namespace: 'apps', name: 'worker-mr-7', group: 'apps', kind: 'Deployment' },
      ],
    }),
  );

  // explain reads no credentials: the GitLab token is left out.
  const env = Object.fromEntries(Object.entries(world.env()).filter(([name]) => !['WEBHOOK_TOKEN', 'GITLAB_TOKEN'].includes(name)));
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN_JS, 'explain', 'ks/flux-system/preview-mr-7'], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  t.match(stdout, `→ GitLab ${PROJECT}@${A.slice(0, 12)} deployment to environment review/mr-7`);
  t.match(stdout, 'external_url https://mr-7.preview.example.com/');
  t.match(stdout, "ref feature/login (from the Flux object's event.toolkit.fluxcd.io/branch annotation)");
  t.match(stdout, 'tier development');
  t.match(
    stdout,
    /review\/mr-7-worker[\s\S]*warning: ref dropped: the github-deployment-bridge\.io\/ref annotation "not a ref" has U\+0020/,
    'a bad ref annotation is a warning; the Flux branch is used instead',
  );
  t.equal(gitlab.requests.length, 0, 'explain sends nothing to GitLab');

  const bridge = await world.bridge();
  t.equal(
    (await bridge.post(fluxEvent('Kustomization', 'flux-system', 'preview-mr-7', { reason: 'ReconciliationSucceeded' }))).status,
    202,
  );
  const deployments = () => gitlab.project(PROJECT)?.deployments ?? [];
  await bridge.waitFor('both reported', () => deployments().filter((d) => d.status === 'success').length === 2);
  t.same(
    deployments().map((d) => [d.ref, d.tag]),
    [
      ['feature/login', false],
      ['feature/login', false],
    ],
  );
  t.notOk(
    gitlab.requests.some((r) => r.path.endsWith('/refs')),
    'no commit refs lookup',
  );
  await bridge.waitFor('tier set', () =>
    gitlab.project(PROJECT)?.environments.some((e) => e.name === 'review/mr-7' && e.tier === 'development' && e.external_url !== null),
  );
  t.same(gitlab.violations, []);
});
