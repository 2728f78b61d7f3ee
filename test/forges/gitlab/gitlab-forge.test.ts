import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { gitlabForge } from '../../../src/forges/gitlab/gitlab-forge.js';
import { parseGitLabUrl } from '../../../src/forges/gitlab/gitlab-url.js';
import type { ReportTarget } from '../../../src/metadata/resolve-target.js';
import { DeploymentStore, type Origin } from '../../../src/store/deployment-store.js';
import { RefusalStore } from '../../../src/store/refusal-store.js';
import { rateLimitFault, startGitLabSimulator } from '../../harness/gitlab-sim.js';
import { assembleForge } from '../../../src/forges/assemble-forge.js';
import { openDatabase } from '../../harness/database.js';

const TOKEN = 'glpat-bridge';
const SHA = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
const PROJECT = 'platform/team/app';
const log = pino({ level: 'silent' });

const target = (sha: string, o: Partial<ReportTarget> = {}): ReportTarget => ({
  forge: 'gitlab',
  owner: 'platform/team',
  repo: 'app',
  environment: 'production/eu-1',
  sha,
  deploymentName: 'app',
  cluster: 'eu-1',
  description: 'Deployed by Flux',
  productionEnvironment: true,
  tier: 'production',
  transientEnvironment: false,
  environmentUrl: 'https://app.example.com/',
  container: 'app',
  image: 'registry.example.com/app:1.0.0',
  payload: {},
  warnings: [],
  ...o,
});
const origin: Origin = {
  source: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
  workload: { kind: 'Deployment', namespace: 'apps', name: 'app' },
  container: 'app',
  image: 'registry.example.com/app:1.0.0',
};

async function setup(t: Test, dryRun = false, gitlabAgentId?: number) {
  const sim = await startGitLabSimulator({
    tokens: { [TOKEN]: 'deploy-bridge', 'glpat-other': 'someone' },
    projects: [
      { path: PROJECT, defaultBranch: 'main', branches: { main: [SHA], 'feature/x': [SHA, SHA2] }, agents: [7] },
      { path: 'platform/locked', reporters: ['deploy-bridge'] },
    ],
  });
  t.teardown(() => sim.close());
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const deployments = new DeploymentStore(db);
  const refusals = new RefusalStore(db);
  const loc = parseGitLabUrl(sim.url);
  if ('problem' in loc) throw new Error(loc.problem);
  let clock = Date.now();
  const build = () =>
    assembleForge(
      gitlabForge,
      { gitlabUrl: loc, gitlabToken: { kind: 'inline', value: TOKEN }, ...(gitlabAgentId === undefined ? {} : { gitlabAgentId }) },
      { db, deployments, refusals, metrics: createMetrics(), log, now: () => clock, userAgent: 'gdb-test', dryRun },
    );
  const forge = build();
  if (forge === undefined) throw new Error('not built');
  t.teardown(() => forge.stop());
  const writes = () => sim.writes().map((w) => `${w.method} ${w.path} ${JSON.stringify(w.body ?? null)}`);
  return { sim, forge, build, deployments, writes, tick: (ms: number) => (clock += ms) };
}

t.test('a rollout: created running with the branch as ref, then success; a second event writes nothing', async (t) => {
  const { sim, forge, writes } = await setup(t);
  await forge.start();
  t.equal(forge.health.credentialState, 'ok');
  t.same((await forge.publish(target(SHA), origin, 'in_progress', 'Progressing')).sent, ['in_progress']);
  t.same((await forge.publish(target(SHA), origin, 'in_progress', 'Progressing')).sent, []);
  t.same((await forge.publish(target(SHA), origin, 'success', 'Rollout complete')).sent, ['success']);
  t.same((await forge.publish(target(SHA), origin, 'success', 'Rollout complete')).sent, []);
  const p = sim.project(PROJECT);
  t.same(
    p?.deployments.map((d) => [d.ref, d.sha, d.status, d.user]),
    [['main', SHA, 'success', 'deploy-bridge']],
  );
  t.same(
    p?.environments.map((e) => [e.name, e.tier, e.external_url]),
    [['production/eu-1', 'production', 'https://app.example.com/']],
  );
  t.equal(writes().length, 3, 'create, environment PUT, update');
  t.same(sim.violations, []);
});

t.test('catch-up is created as success; a failure retried to success updates the same deployment', async (t) => {
  const { sim, forge } = await setup(t);
  t.same((await forge.publish(target(SHA), origin, 'success', 'live')).sent, ['success']);
  t.same((await forge.publish(target(SHA2, { environment: 'staging' }), origin, 'failure', 'failed')).sent, ['failure']);
  t.same((await forge.publish(target(SHA2, { environment: 'staging' }), origin, 'success', 'ok')).sent, ['success']);
  const p = sim.project(PROJECT);
  t.same(
    p?.deployments.map((d) => [d.sha, d.status, d.ref]),
    [
      [SHA, 'success', 'main'],
      [SHA2, 'success', 'feature/x'],
    ],
  );
  t.same(sim.violations, []);
});

t.test('a crash between the create and its answer: recovery adopts the deployment, no duplicate', async (t) => {
  const { sim, forge, build } = await setup(t);
  sim.inject({ method: 'POST', path: `/projects/${encodeURIComponent(PROJECT)}/deployments`, afterWork: 502, body: {} });
  await t.rejects(forge.publish(target(SHA), origin, 'in_progress', 'Progressing'));
  const again = build();
  if (again === undefined) throw new Error('not built');
  t.same((await again.publish(target(SHA), origin, 'success', 'done')).sent, ['success']);
  t.same(
    sim.project(PROJECT)?.deployments.map((d) => d.status),
    ['success'],
  );
  t.same(sim.violations, []);
});

t.test('a 429 pauses GitLab work until Retry-After; a 403 refuses the project', async (t) => {
  const { sim, forge, tick } = await setup(t);
  sim.inject({
    method: 'POST',
    path: `/projects/${encodeURIComponent(PROJECT)}/deployments`,
    ...rateLimitFault({ retryAfterSeconds: 30 }),
  });
  await t.rejects(forge.publish(target(SHA), origin, 'in_progress', 'Progressing'));
  t.not(forge.health.snapshot().pause, null, 'GitLab work paused');
  const before = sim.requests.length;
  await t.rejects(forge.publish(target(SHA), origin, 'in_progress', 'Progressing'));
  t.equal(sim.requests.length, before, 'nothing sent while paused');
  tick(31_000);
  t.same((await forge.publish(target(SHA), origin, 'in_progress', 'Progressing')).sent, ['in_progress']);
  t.same(sim.project(PROJECT)?.deployments.length, 1);
  const locked = target(SHA, { owner: 'platform', repo: 'locked' });
  await t.rejects(forge.publish(locked, origin, 'in_progress', 'x'), { name: 'RefusedByForge' });
  t.match(JSON.stringify(forge.state()), /gitlab_(forbidden|not_found)/);
});

t.test('retire: a transient environment whose last workload is gone is stopped', async (t) => {
  const { sim, forge, deployments } = await setup(t);
  const preview = target(SHA2, { environment: 'review/feature-x', transientEnvironment: true, productionEnvironment: false });
  await forge.publish(preview, origin, 'success', 'ok');
  const row = deployments.get({ ...preview, forge: 'gitlab' });
  if (row === undefined) throw new Error('no row');
  t.equal(await forge.retire(row, 'gone'), true);
  t.same(
    sim.project(PROJECT)?.environments.map((e) => [e.name, e.state]),
    [['review/feature-x', 'stopped']],
  );
  t.same(sim.violations, []);
});

t.test('dry run: reads go to GitLab, writes are logged', async (t) => {
  const { sim, forge } = await setup(t, true);
  t.same((await forge.publish(target(SHA), origin, 'in_progress', 'Progressing')).sent, ['in_progress']);
  t.same(sim.writes(), []);
});

t.test("the target's ref and tier: no branch lookup, the tier set on the environment", async (t) => {
  const { sim, forge } = await setup(t);
  const preview = target(SHA2, {
    environment: 'review/feature-x',
    productionEnvironment: false,
    ref: { ref: 'feature/x', tag: false, from: 'flux' },
    tier: 'development',
  });
  t.same((await forge.publish(preview, origin, 'success', 'ok')).sent, ['success']);
  t.notOk(
    sim.requests.some((r) => r.path.endsWith('/refs')),
    'no commit refs lookup',
  );
  const p = sim.project(PROJECT);
  t.same(
    p?.deployments.map((d) => [d.ref, d.tag]),
    [['feature/x', false]],
  );
  t.same(
    p?.environments.map((e) => [e.name, e.tier]),
    [['review/feature-x', 'development']],
  );
  t.same(sim.violations, []);
});

t.test('retire after a restart: the preview environment is still stopped, once', async (t) => {
  const { sim, forge, build, deployments } = await setup(t);
  const preview = target(SHA2, { environment: 'review/feature-y', transientEnvironment: true, productionEnvironment: false });
  await forge.publish(preview, origin, 'success', 'ok');
  forge.stop();
  const restarted = build();
  if (restarted === undefined) throw new Error('not built');
  t.teardown(() => restarted.stop());
  const row = deployments.get({ ...preview, forge: 'gitlab' });
  if (row === undefined) throw new Error('no row');
  t.equal(await restarted.retire(row, 'gone'), true, 'stopped by the new process');
  t.equal(await restarted.retire(row, 'gone'), false, 'a second retire writes nothing');
  const stops = sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/stop'));
  t.equal(stops.length, 1, 'one stop request');
  t.same(
    sim.project(PROJECT)?.environments.map((e) => [e.name, e.state]),
    [['review/feature-y', 'stopped']],
  );
  const steady = target(SHA, { environment: 'staging', productionEnvironment: false });
  await restarted.publish(steady, origin, 'success', 'ok');
  const steadyRow = deployments.get({ ...steady, forge: 'gitlab' });
  if (steadyRow === undefined) throw new Error('no row');
  const before = sim.requests.length;
  t.equal(await restarted.retire(steadyRow, 'gone'), false, 'a non-transient environment gets no write');
  t.equal(sim.requests.length, before, 'nor a read');
  t.same(sim.violations, []);
});

t.test('an ambiguous crash recovery: refused with the reason, the row kept provisional, nothing created, not looped', async (t) => {
  const { sim, forge, deployments, tick } = await setup(t);
  const id = { ...target(SHA), forge: 'gitlab' };
  // Two deployments of the commit by the token's user that no row holds: which one did the crashed create make?
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${sim.apiUrl}/projects/${encodeURIComponent(PROJECT)}/deployments`, {
      method: 'POST',
      headers: { 'private-token': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ environment: id.environment, sha: SHA, ref: 'main', tag: false, status: 'running' }),
    });
    t.equal(res.status, 201);
  }
  deployments.insertProvisional(id, origin, Date.now());
  await t.rejects(forge.publish(target(SHA), origin, 'success', 'done'), {
    name: 'RefusedByForge',
    message: /2 deployments of aaaaaaa to production\/eu-1 by this token's user/,
  });
  t.match(JSON.stringify(forge.state()), /gitlab_ambiguous_recovery/, 'in /state');
  t.equal(deployments.get(id)?.deploymentId, null, 'the row stays provisional');
  const before = sim.requests.length;
  await t.rejects(forge.publish(target(SHA), origin, 'success', 'done'), { name: 'RefusedByForge' });
  t.equal(sim.requests.length, before, 'held: no request until the retry time');
  tick(61 * 60_000);
  await t.rejects(forge.publish(target(SHA), origin, 'success', 'done'), { name: 'RefusedByForge' });
  t.equal(sim.project(PROJECT)?.deployments.length, 2, 'nothing created, nothing moved');
  t.same(
    sim.writes().map((w) => w.method),
    ['POST', 'POST'],
    'only the two set up',
  );
  t.same(sim.violations, []);
});

t.test('a failed environment PUT is tried again at the next publish, then never repeated while it matches', async (t) => {
  const { sim, forge } = await setup(t);
  sim.inject({ method: 'PUT', path: /\/environments\/\d+$/, status: 502, body: { message: '502 Bad Gateway' } });
  await t.rejects(forge.publish(target(SHA), origin, 'in_progress', 'Progressing'), 'the outage fails the publish (the queue backs off)');
  const env = () => sim.project(PROJECT)?.environments.map((e) => [e.external_url, e.tier]);
  t.equal(sim.project(PROJECT)?.deployments.length, 1, 'the deployment was created');
  t.same((await forge.publish(target(SHA), origin, 'in_progress', 'Progressing')).sent, [], 'no deployment write');
  t.same(env(), [['https://app.example.com/', 'production']], 'the PUT went through on the retry');
  const puts = () => sim.requests.filter((r) => r.method === 'PUT' && r.path.includes('/environments/')).length;
  t.equal(puts(), 2, 'the failed PUT and its retry');
  const before = sim.requests.length;
  t.same((await forge.publish(target(SHA), origin, 'in_progress', 'Progressing')).sent, []);
  t.equal(sim.requests.length, before, 'matching: no read, no PUT');
  t.same((await forge.publish(target(SHA), origin, 'success', 'done')).sent, ['success']);
  t.equal(puts(), 2, 'still two');
  t.same(sim.violations, []);
});

t.test('an environment PUT GitLab refuses: a refusal of the environment alone, the deployment goes on', async (t) => {
  const { sim, forge } = await setup(t);
  const bad = target(SHA, { environmentUrl: 'ftp://app.example.com/' });
  t.same((await forge.publish(bad, origin, 'in_progress', 'Progressing')).sent, ['in_progress']);
  t.match(JSON.stringify(forge.state()), /gitlab_environment_rejected.*GitLab refused to set external_url on environment production\/eu-1/);
  const before = sim.requests.length;
  t.same((await forge.publish(bad, origin, 'success', 'done')).sent, ['success'], 'statuses go on');
  t.same(
    sim.requests.slice(before).map((r) => r.method),
    ['PUT'],
    'only the status: the refused PUT is not repeated before its retry time',
  );
  t.same(sim.violations, []);
});

t.test('GITLAB_AGENT_ID: the environment is linked to the agent, the namespace and the Flux object, with one PUT', async (t) => {
  const { sim, forge } = await setup(t, false, 7);
  t.same((await forge.publish(target(SHA), origin, 'in_progress', 'Progressing')).sent, ['in_progress']);
  t.same((await forge.publish(target(SHA), origin, 'success', 'done')).sent, ['success']);
  const helm: Origin = { ...origin, source: { kind: 'HelmRelease', namespace: 'web', name: 'shop' } };
  t.same((await forge.publish(target(SHA, { environment: 'staging' }), helm, 'success', 'done')).sent, ['success']);
  const envs = sim.project(PROJECT)?.environments.map((e) => [e.name, e.cluster_agent_id, e.kubernetes_namespace, e.flux_resource_path]);
  t.same(envs, [
    ['production/eu-1', 7, 'apps', 'kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps'],
    ['staging', 7, 'apps', 'helm.toolkit.fluxcd.io/v2/namespaces/web/helmreleases/shop'],
  ]);
  const puts = sim.writes().filter((w) => w.method === 'PUT' && w.path.includes('/environments/'));
  t.equal(puts.length, 2, 'one PUT per environment');
  t.match(puts[0]?.body, { cluster_agent_id: 7, kubernetes_namespace: 'apps', external_url: 'https://app.example.com/' });
  t.same(sim.violations, []);
});

t.test('GITLAB_AGENT_ID of an agent the project may not use: the environment update is refused, deployments go on', async (t) => {
  const { sim, forge } = await setup(t, false, 9);
  t.same((await forge.publish(target(SHA), origin, 'success', 'live')).sent, ['success']);
  t.match(JSON.stringify(forge.state()), /gitlab_environment_rejected.*Unauthorized to access the cluster agent in this project/);
  t.same(
    sim.project(PROJECT)?.environments.map((e) => [e.cluster_agent_id, e.external_url]),
    [[null, null]],
    'nothing changed on the environment',
  );
  t.same(sim.violations, []);
});

t.test('a retired workload that comes back: its status read from GitLab, no refused transition', async (t) => {
  const { sim, forge, deployments } = await setup(t);
  const live = target(SHA, { environment: 'staging', productionEnvironment: false });
  await forge.publish(live, origin, 'success', 'live');
  const row = deployments.get({ ...live, forge: 'gitlab' });
  if (row === undefined) throw new Error('no row');
  t.equal(await forge.retire(row, 'gone'), false, 'a finished deployment keeps its status: no write');
  t.match(forge.describe(deployments.get(row) ?? row), { deploymentId: row.deploymentId, forgeState: 'gone' }, '/state says gone');
  t.same((await forge.publish(live, origin, 'success', 'back')).sent, [], 'GitLab still says success: nothing to send');

  const rolling = target(SHA2, { environment: 'staging', productionEnvironment: false });
  await forge.publish(rolling, origin, 'in_progress', 'rolling');
  const second = deployments.get({ ...rolling, forge: 'gitlab' });
  if (second === undefined) throw new Error('no row');
  t.equal(await forge.retire(second, 'gone'), true, 'a running deployment is canceled');
  t.same((await forge.publish(rolling, origin, 'success', 'back')).sent, ['success'], 'canceled → success');
  t.same(
    sim.project(PROJECT)?.deployments.map((d) => [d.sha, d.status]),
    [
      [SHA, 'success'],
      [SHA2, 'success'],
    ],
  );
  t.same(sim.violations, [], 'no refused transition was sent');
});

t.test('a commit GitLab has on no branch, or not at all: refused with what to do, nothing created, the project not refused', async (t) => {
  const { sim, forge } = await setup(t);
  const unknown = 'c'.repeat(40);
  await t.rejects(forge.publish(target(unknown), origin, 'success', 'live'), {
    name: 'RefusedByForge',
    message: /GitLab does not have commit ccccccc in platform\/team\/app \(404 404 Commit Not Found\)/,
  });
  t.same(sim.project(PROJECT)?.deployments, [], 'nothing created');
  t.same((await forge.publish(target(SHA), origin, 'success', 'live')).sent, ['success'], 'the project is not refused');
  t.same(sim.violations, []);
});
