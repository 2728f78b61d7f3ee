/**
 * Forgejo and Gitea end to end: the real bridge process against the Forgejo simulator (every request
 * checked against Forgejo's swagger), the fake Kubernetes API and, where both forges are asked for, the
 * GitHub simulator. Repository and commit are annotated (no registry needed) except where labels are the point.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { MAIN_JS, fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import type { StoredStatus } from '../harness/forgejo-sim.js';
import { ingress, service } from '../harness/route-objects.js';
import { queueIdle } from '../harness/state-body.js';
import { startWorld, type World, type WorldOptions } from '../harness/world.js';
import { HEALTH_FAILED, OPT_IN, PROGRESSING, READY, pushAppImage, putDeployment, putKustomization, sha } from './scenario.js';

const A = sha('forgejo-a');
const B = sha('forgejo-b');
const NS = 'apps';
/** The default context of environment preview-pr-42 in the world's cluster. */
const CONTEXT = 'deploy/preview-pr-42 (sim-cluster)';
const KUSTOMIZATION = 'kustomize.toolkit.fluxcd.io/v1';

async function forgejoWorld(t: Test, o: WorldOptions = {}): Promise<World> {
  const world = await startWorld({
    forgejo: { repos: ['acme/shop', 'acme/api'], commits: { 'acme/shop': [A, B], 'acme/api': [A] } },
    ...o,
  });
  t.teardown(() => world.close());
  return world;
}

const forgejoOf = (world: World) => {
  if (world.forgejo === undefined) throw new Error('this world has no Forgejo');
  return world.forgejo;
};

/** Deployment apps/<app> of repository `<forgejo>/acme/<repo>` at `commit` in `environment`, rollout finished. */
function putApp(world: World, app: string, commit: string, environment: string, extra: Record<string, string> = {}): void {
  putDeployment(world, app, `registry.invalid/acme/${app}:${commit.slice(0, 7)}`, {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': `${forgejoOf(world).url}/acme/${extra.repo ?? app}`,
    'github-deployment-bridge.io/commit': commit,
    'github-deployment-bridge.io/environment': environment,
    ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'repo')),
  });
}

/** The preview of pull request 42: Deployment shop, its Service and an Ingress with tls for pr-42.preview.example.com. */
function putPreview(world: World, commit: string, conditions = READY, generation = 1): void {
  putApp(world, 'shop', commit, 'preview-pr-42');
  world.kube.put(service({ namespace: NS, name: 'shop' }));
  world.kube.put(ingress({ namespace: NS, name: 'shop', host: 'pr-42.preview.example.com', path: '/', service: 'shop', tls: true }));
  putKustomization(world, 'preview-pr-42', ['shop'], conditions, generation, [
    { namespace: NS, name: 'shop', group: '', kind: 'Service' },
    { namespace: NS, name: 'shop', group: 'networking.k8s.io', kind: 'Ingress' },
  ]);
}

const states = (list: StoredStatus[]) => list.map((s) => s.state);

async function settle(bridge: BridgeProcess): Promise<void> {
  await bridge.waitFor('queue idle', async () => {
    const s = await bridge.state();
    return s.fluxObjects.length > 0 && queueIdle(s);
  });
}

async function event(bridge: BridgeProcess, name: string, reason = 'ReconciliationSucceeded'): Promise<void> {
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', name, { reason }))).status, 202);
}

t.test('a preview on Forgejo: pending, then success with the discovered route; history kept; closed preview ends', async (t) => {
  const world = await forgejoWorld(t);
  const forgejo = forgejoOf(world);
  putPreview(world, A, PROGRESSING);
  const bridge = await world.bridge({ CLEANUP_GRACE: '1s' });
  await event(bridge, 'preview-pr-42', 'Progressing');
  await bridge.waitFor('pending', () => forgejo.statuses('acme', 'shop', A).length === 1);

  putPreview(world, A, READY);
  await event(bridge, 'preview-pr-42');
  const lifecycle = await bridge.waitFor('success', () => {
    const list = forgejo.statuses('acme', 'shop', A);
    return list.length === 2 && list;
  });
  t.same(states(lifecycle), ['pending', 'success'], 'two writes per lifecycle');
  t.same(
    lifecycle.map((s) => s.context),
    [CONTEXT, CONTEXT],
    'one stable context',
  );
  t.equal(lifecycle[1]!.target_url, 'https://pr-42.preview.example.com/', 'target_url: the Ingress found in the inventory');
  t.match(
    lifecycle[1]!.description,
    new RegExp(`^shop:${A.slice(0, 7)} on sim-cluster · ReconciliationSucceeded`),
    'names what runs and where',
  );

  for (let i = 0; i < 3; i++) await event(bridge, 'preview-pr-42');
  await settle(bridge);
  t.equal(forgejo.writes().length, 2, 'repeated events send nothing');
  const state = await bridge.state();
  t.match(state.deployments, [{ forge: 'forgejo', owner: 'acme', repo: 'shop', sha: A, context: CONTEXT, state: 'success' }]);
  t.match(await bridge.metrics(), /gdb_statuses_sent_total\{forge="forgejo",state="success"\} 1/);
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN_JS, 'explain', 'Kustomization/flux-system/preview-pr-42'], {
    env: { PATH: process.env.PATH ?? '', ...world.env() },
  });
  t.match(stdout, `→ Forgejo acme/shop@${A.slice(0, 12)} commit status "${CONTEXT}"`, 'explain names the forge and the context');
  t.match(stdout, 'target_url https://pr-42.preview.example.com/ (from Ingress apps/shop)');

  // A newer commit: it gets its own status; the older commit's status stays as it was.
  putPreview(world, B, READY, 2);
  await event(bridge, 'preview-pr-42');
  await bridge.waitFor('B success', () => forgejo.statuses('acme', 'shop', B).length === 1);
  await settle(bridge);
  t.same(states(forgejo.statuses('acme', 'shop', B)), ['success'], 'a commit that arrives Ready sends only success');
  t.same(states(forgejo.statuses('acme', 'shop', A)), ['pending', 'success'], 'the older commit is left as history');

  // The pull request is closed: Flux deletes the preview's Kustomization.
  world.kube.delete(KUSTOMIZATION, 'Kustomization', 'flux-system', 'preview-pr-42');
  world.kube.delete('apps/v1', 'Deployment', NS, 'shop');
  await event(bridge, 'preview-pr-42');
  const ended = await bridge.waitFor('gone', () => {
    const list = forgejo.statuses('acme', 'shop', B);
    return list.length === 2 && list;
  });
  t.match(ended[1], {
    state: 'success',
    context: CONTEXT,
    target_url: '',
    description: /^Deployment gone: Flux Kustomization flux-system\/preview-pr-42 was deleted/,
  });
  t.same(states(forgejo.statuses('acme', 'shop', A)), ['pending', 'success'], 'history untouched by cleanup');
  await settle(bridge);
  t.equal(forgejo.writes().length, 4, 'pending, success, success (B), gone: nothing else');
  t.same(forgejo.violations, [], "every request matched Forgejo's swagger");
  t.same(world.github.writes(), [], 'nothing went to GitHub');
  t.same(world.kube.writes(), [], 'observe only');
});

t.test('a failure that Flux retries successfully turns success; a deployment-name joins the context', async (t) => {
  const world = await forgejoWorld(t);
  const forgejo = forgejoOf(world);
  putApp(world, 'api', A, 'staging', { 'github-deployment-bridge.io/deployment-name': 'api-eu' });
  putKustomization(world, 'api', ['api'], HEALTH_FAILED);
  const bridge = await world.bridge();
  await event(bridge, 'api', 'HealthCheckFailed');
  await bridge.waitFor('failure', () => forgejo.statuses('acme', 'api', A).length === 1);
  putKustomization(world, 'api', ['api'], READY, 1);
  await event(bridge, 'api');
  await bridge.waitFor('success', () => forgejo.statuses('acme', 'api', A).length === 2);
  await settle(bridge);
  const list = forgejo.statuses('acme', 'api', A);
  t.same(states(list), ['failure', 'success']);
  t.same(
    list.map((s) => s.context),
    ['deploy/staging/api-eu (sim-cluster)', 'deploy/staging/api-eu (sim-cluster)'],
  );
  t.same(forgejo.violations, []);
});

t.test('one bridge serves GitHub and Forgejo at once, routed by the repository host (OCI labels)', async (t) => {
  const world = await forgejoWorld(t, { registry: true });
  const forgejo = forgejoOf(world);
  const githubImage = await pushAppImage(world, 'web', '1.0.0', A);
  const forgejoImage = await pushAppImage(world, 'shop', '2.0.0', A, { 'org.opencontainers.image.source': `${forgejo.url}/acme/shop` });
  putDeployment(world, 'web', githubImage);
  putDeployment(world, 'shop', forgejoImage);
  putKustomization(world, 'apps', ['web', 'shop'], READY);
  const bridge = await world.bridge();
  await event(bridge, 'apps');
  await bridge.waitFor(
    'both',
    () => forgejo.statuses('acme', 'shop', A).length === 1 && world.github.deployments('acme', 'web').length === 1,
  );
  await settle(bridge);
  const [status] = forgejo.statuses('acme', 'shop', A);
  t.match(status, { state: 'success', context: 'deploy/staging (sim-cluster)', description: /^2\.0\.0 on sim-cluster · / });
  t.equal(world.github.deployments('acme', 'web')[0]!.statuses.at(-1)?.state, 'success');
  t.same(world.github.deployments('acme', 'shop'), [], 'the Forgejo repository never reaches GitHub');
  const forges = (await bridge.state()).deployments.map((d) => `${d.forge} ${d.repo}`).sort();
  t.same(forges, ['forgejo shop', 'github web']);
  t.same(forgejo.violations, []);
  t.same(world.github.violations, []);
});

t.test('Forgejo only: starts without GitHub credentials; a github.com repository is skipped with the reason', async (t) => {
  const world = await forgejoWorld(t, { githubOff: true });
  const forgejo = forgejoOf(world);
  putApp(world, 'shop', A, 'staging');
  putDeployment(world, 'web', 'registry.invalid/acme/web:1', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'https://github.com/acme/web',
    'github-deployment-bridge.io/commit': A,
  });
  putKustomization(world, 'apps', ['shop', 'web'], READY);
  const bridge = await world.bridge();
  await event(bridge, 'apps');
  await bridge.waitFor('shop success', () => forgejo.statuses('acme', 'shop', A).length === 1);
  await settle(bridge);
  const state = await bridge.state();
  t.match(state.skipped, [{ workload: 'Deployment/apps/web', code: 'bad_repository', reason: /no GitHub credentials are set/ }]);
  t.equal((await bridge.readyz()).status, 200);
  t.equal(world.github.requests.length, 0, 'no GitHub request at all');
});

t.test('a rejected token: /readyz says which forge failed; nothing is written until it works', async (t) => {
  const world = await forgejoWorld(t, { githubOff: true });
  const forgejo = forgejoOf(world);
  putApp(world, 'shop', A, 'staging');
  putKustomization(world, 'apps', ['shop'], READY);
  const bridge = await world.bridge({ FORGEJO_TOKEN: 'wrong-token' });
  const ready = await bridge.waitFor('unready because of Forgejo', async () => {
    const r = await bridge.readyz();
    return r.status === 503 && r.body.reasons.some((x) => x.startsWith('Forgejo credentials rejected: 401')) && r;
  });
  t.notOk(
    ready.body.reasons.some((x) => x.startsWith('GitHub')),
    'GitHub is not blamed',
  );
  await event(bridge, 'apps');
  // Every configured forge is paused: the worker takes no work, the event waits in the durable queue.
  await bridge.waitFor('the event queued', async () => (await bridge.state()).queue.pending === 1);
  t.equal(forgejo.writes().length, 0, 'no status sent with a rejected token');
  t.match(await bridge.metrics(), /gdb_forge_credentials_ok\{forge="forgejo"\} 0/);
});

t.test('faults: a missing repository is a skip, a 5xx and a 429 with Retry-After are retried, nothing duplicated', async (t) => {
  const world = await forgejoWorld(t);
  const forgejo = forgejoOf(world);
  putApp(world, 'gone', A, 'staging', { repo: 'missing' });
  putApp(world, 'shop', A, 'staging');
  putKustomization(world, 'apps', ['gone', 'shop'], READY);
  forgejo.inject({ method: 'POST', path: /\/statuses\//, status: 502, body: 'Bad Gateway' });
  forgejo.inject({ method: 'POST', path: /\/statuses\//, status: 429, headers: { 'retry-after': '1' }, body: 'Too Many Requests' });
  const bridge = await world.bridge();
  await event(bridge, 'apps');
  await bridge.waitFor('shop success', () => forgejo.statuses('acme', 'shop', A).length === 1, 60_000);
  await settle(bridge);
  const state = await bridge.state();
  t.match(state.skipped, [{ workload: 'Deployment/apps/gone', code: 'forgejo_not_found', reason: /acme\/missing not found on Forgejo/ }]);
  t.same(states(forgejo.statuses('acme', 'shop', A)), ['success'], 'exactly one status after the retries');
  t.ok(
    forgejo.requests.filter((r) => r.method === 'POST' && r.path.includes('/acme/missing/')).length <= 1,
    'the refused repository is not asked again before its retry time',
  );
  t.match(await bridge.metrics(), /gdb_forge_pauses_total\{forge="forgejo",kind="secondary"\} 1/);
});

t.test('trust boundary: host/owner patterns; a repository outside gets no request at all', async (t) => {
  const world = await forgejoWorld(t);
  const forgejo = forgejoOf(world);
  putApp(world, 'shop', A, 'staging');
  putKustomization(world, 'apps', ['shop'], READY);
  const bridge = await world.bridge({ ALLOWED_REPOSITORIES: `${new URL(forgejo.url).host}/platform/*,github.com/acme/*` });
  await event(bridge, 'apps');
  await settle(bridge);
  t.match((await bridge.state()).skipped, [{ code: 'repository_not_allowed', reason: /acme\/shop .* is not in ALLOWED_REPOSITORIES/ }]);
  t.equal(forgejo.requests.filter((r) => r.path.startsWith('/repos/')).length, 0);
});

t.test('DRY_RUN: Forgejo reads happen, writes are only logged', async (t) => {
  const world = await forgejoWorld(t);
  const forgejo = forgejoOf(world);
  putApp(world, 'shop', A, 'staging');
  putKustomization(world, 'apps', ['shop'], READY);
  const bridge = await world.bridge({ DRY_RUN: 'true' });
  await event(bridge, 'apps');
  await bridge.waitFor('the would-be status logged', () =>
    bridge.logs.some((l) => l.msg === 'DRY_RUN: would send a Forgejo commit status'),
  );
  await settle(bridge);
  t.equal(forgejo.writes().length, 0, 'nothing written');
  t.ok(
    forgejo.requests.some((r) => r.method === 'GET' && r.path.includes('/statuses/')),
    'the context was read back from Forgejo',
  );
});
