/**
 * The real bridge process meets GitHub's limits: a primary rate limit pauses the token's requests until
 * the reset (shown in /state and /metrics), nothing is retried meanwhile, and the statuses Flux
 * overtook during the pause are never sent. With a GitHub App a secondary limit pauses only the
 * installation that hit it. Bad credentials make the bridge not ready.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { APP_INSTALLATION_ID, startWorld } from '../harness/world.js';
import { OPT_IN, PROGRESSING, READY, clientStates, putDeployment, putKustomization, sha } from './scenario.js';

const metric = (text: string, name: string) =>
  Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1]);

t.test('primary rate limit: paused until the reset, no request meanwhile, then only the newest truth', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const commit = sha('limits-1');
  const bridge = await world.bridge();
  // The first status (in_progress) meets a spent budget that resets in a few seconds; the source appears after start.
  const reset = Math.ceil(Date.now() / 1000) + 10;
  world.github.inject({ method: 'POST', path: /\/statuses$/, ...world.github.faults.primaryRateLimit(reset) });
  putDeployment(world, 'web', 'ghcr.io/acme/web:1', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'acme/web',
    'github-deployment-bridge.io/commit': commit,
  });
  putKustomization(world, 'web', ['web'], PROGRESSING);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));

  const state = await bridge.waitFor('paused', async () => {
    const s = await bridge.state();
    return s.github.paused !== null && s;
  });
  const until = (reset + 1) * 1000;
  t.match(state.github.paused, {
    kind: 'primary',
    until: new Date(until).toISOString(),
    reason: /^primary rate limit: the core request budget is spent until /,
  });
  t.match(
    state.queue.items,
    [{ name: 'web', state: 'pending', notBefore: new Date(until).toISOString(), lastError: /GitHub work paused|403/ }],
    'the source waits in the queue for the reset',
  );
  t.ok(
    state.github.budgets.some((b) => b.scope === 'token' && b.remaining === 0),
    'the spent budget is shown',
  );
  t.match(state.github.pausedScopes, [{ scope: 'token', kind: 'primary', until: new Date(until).toISOString() }]);
  const metrics = await bridge.metrics();
  t.equal(metric(metrics, 'gdb_forge_paused_until_timestamp_seconds{forge="github",scope="token"}'), reset + 1);
  t.equal(
    metric(metrics, 'gdb_forge_paused_until_timestamp_seconds{forge="github",scope="all"}'),
    reset + 1,
    "a token's limit holds back every request",
  );
  t.equal(metric(metrics, 'gdb_forge_pauses_total{forge="github",kind="primary"}'), 1);
  t.equal(metric(metrics, 'gdb_forge_rate_limit_remaining{forge="github",scope="token",resource="core"}'), 0);
  t.equal(
    metric(
      metrics,
      'gdb_forge_requests_total{forge="github",operation="POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses",status="403"}',
    ),
    1,
  );
  const refusedAt = world.github.requests.find((r) => r.status === 403)!.time;

  // Flux finishes during the pause; its event is accepted and queued like any other.
  putKustomization(world, 'web', ['web'], READY);
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await bridge.waitFor(
    'success after the reset',
    () => clientStates(world.github.deployments('acme', 'web')[0]).includes('success'),
    30_000,
  );

  t.same(
    world.github.writes().map((w) => `${w.method} ${w.path.replace(/\d+/g, 'N')} ${(w.body as { state?: string }).state ?? ''}`),
    ['POST /repos/acme/web/deployments ', 'POST /repos/acme/web/deployments/N/statuses success'],
    'two writes: the create and the success; in_progress was overtaken and dropped',
  );
  t.same(clientStates(world.github.deployments('acme', 'web')[0]), ['success']);
  const during = world.github.requests.filter((r) => r.time > refusedAt && r.time < until);
  t.same(
    during.map((r) => `${r.method} ${r.path}`),
    [],
    'no GitHub request between the refusal and the reset',
  );
  const after = await bridge.state();
  t.equal(after.github.paused, null, 'the pause is over');
  t.same(world.github.violations, []);
});

t.test('a GitHub App: a secondary limit pauses only the installation that hit it; the others and the worker go on', async (t) => {
  const GLOBEX = APP_INSTALLATION_ID + 1;
  const world = await startWorld({
    app: {
      installations: [
        { id: APP_INSTALLATION_ID, account: 'acme' },
        { id: GLOBEX, account: 'globex' },
      ],
    },
    github: { repos: ['acme/web', 'globex/api'] },
  });
  t.teardown(() => world.close());
  const retryAfter = 12;
  world.github.inject({
    method: 'POST',
    path: /^\/repos\/acme\/web\/deployments\/\d+\/statuses$/,
    ...world.github.faults.secondaryRateLimit(retryAfter),
  });
  const bridge = await world.bridge();
  await bridge.waitFor('ready', async () => (await bridge.readyz()).status === 200);
  const annotated = (repository: string, seed: string) => ({
    ...OPT_IN,
    'github-deployment-bridge.io/repository': repository,
    'github-deployment-bridge.io/commit': sha(seed),
  });
  // acme's workload comes first in the inventory: its limit is met before globex is asked anything.
  putDeployment(world, 'web', 'ghcr.io/acme/web:1', annotated('acme/web', 'scoped-a'));
  putDeployment(world, 'partner', 'ghcr.io/globex/api:1', annotated('globex/api', 'scoped-g'));
  putKustomization(world, 'apps', ['web', 'partner'], READY);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'));

  await bridge.waitFor("globex success during acme's pause", () =>
    clientStates(world.github.deployments('globex', 'api')[0]).includes('success'),
  );
  const refused = world.github.requests.find((r) => r.status === 403)!;
  const until = refused.time + retryAfter * 1000;
  t.match(refused.path, /^\/repos\/acme\/web\//);
  // The reconcile that sent globex's success ends with acme's failure: wait for it to be recorded.
  const state = await bridge.waitFor('the source back in the queue', async () => {
    const s = await bridge.state();
    return s.queue.items[0]?.state === 'pending' && s;
  });
  t.ok(Date.now() < until, 'still within the pause');
  t.equal(state.github.paused, null, 'nothing holds back every request');
  t.match(state.github.pausedScopes, [
    { scope: `installation ${APP_INSTALLATION_ID}`, kind: 'secondary', reason: /^secondary rate limit/ },
  ]);
  t.match(state.queue.items, [{ name: 'apps', state: 'pending', lastError: /403|paused/ }], 'the source waits for the pause to end');
  const metrics = await bridge.metrics();
  t.ok(
    metric(metrics, `gdb_forge_paused_until_timestamp_seconds{forge="github",scope="installation ${APP_INSTALLATION_ID}"}`) >=
      Math.floor(until / 1000),
  );
  t.equal(metric(metrics, 'gdb_forge_paused_until_timestamp_seconds{forge="github",scope="all"}'), 0);
  t.equal(metric(metrics, 'gdb_forge_pauses_total{forge="github",kind="secondary"}'), 1);

  // A reconcile that needs no GitHub request runs meanwhile: a source whose workload is missing, skipped with the reason.
  putKustomization(world, 'more', ['lost'], READY);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'more'));
  await bridge.waitFor('the skip recorded during the pause', async () =>
    (await bridge.state()).skipped.some((s) => s.workload === 'Deployment/apps/lost' && s.code === 'workload_missing'),
  );
  t.ok(Date.now() < until, 'still within the pause');

  await bridge.waitFor(
    'acme success after its pause',
    () => clientStates(world.github.deployments('acme', 'web')[0]).includes('success'),
    45_000,
  );
  const acme = world.github.requests.filter((r) => r.path.startsWith('/repos/acme/') && r.time > refused.time);
  t.ok(acme.length > 0 && acme.every((r) => r.time >= until), 'no request of the paused installation before its time');
  t.same(clientStates(world.github.deployments('acme', 'web')[0]), ['success']);
  t.same(world.github.violations, []);
});

t.test('a rejected token: not ready with the reason, the work kept', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const bridge = await world.bridge({ GITHUB_TOKEN: 'ghp_revoked' });
  const r = await bridge.waitFor('not ready', async () => {
    const x = await bridge.readyz();
    return x.status === 503 && x.body.reasons.some((s) => s.startsWith('GitHub')) && x.body;
  });
  t.match(
    r.reasons.filter((s) => s.startsWith('GitHub')),
    [/^GitHub credentials rejected: 401 Bad credentials \(next check /],
  );
  // The work appears once the rejection is known (at start, a reconcile may race the check's answer and get one 401 of its own).
  putDeployment(world, 'web', 'ghcr.io/acme/web:1', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'acme/web',
    'github-deployment-bridge.io/commit': sha('bad-token'),
  });
  putKustomization(world, 'web', ['web'], READY);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  const state = await bridge.waitFor('queued', async () => {
    const s = await bridge.state();
    return s.queue.pending === 1 && s;
  });
  t.same(state.skipped, [], 'not skipped: the work waits for working credentials');
  t.match(state.github, { credentials: { state: 'rejected' }, paused: { kind: 'credentials' } });
  t.same(
    world.github.requests.map((q) => `${q.method} ${q.path} ${q.status}`),
    ['GET /rate_limit 401'],
    'only the check',
  );
  const metrics = await bridge.metrics();
  t.equal(metric(metrics, 'gdb_forge_credentials_ok{forge="github"}'), 0);
});
