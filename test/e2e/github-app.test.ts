/**
 * The real bridge process as a GitHub App on a GitHub Enterprise Server API path: the simulator
 * verifies each JWT with the App's public key and opens repositories only to installation tokens.
 */
import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { fluxEvent } from '../harness/bridge-process.js';
import { finishRollout } from '../harness/rollouts.js';
import { APP_INSTALLATION_ID, startWorld } from '../harness/world.js';
import { READY, annotated, clientStates, idle, putDeployment, putKustomization, sha } from './scenario.js';

t.test(
  'GitHub App on Enterprise Server: JWT, installation looked up once (kept across a restart), installation tokens, skips with reasons',
  async (t) => {
    // globex/api exists; the App is not installed on globex.
    const world = await startWorld({ app: true, github: { pathPrefix: '/api/v3', repos: ['acme/web', 'globex/api'] } });
    t.teardown(() => world.close());
    t.match(world.env().GITHUB_API_URL, /\/api\/v3$/);
    t.equal(world.env().GITHUB_TOKEN, undefined, 'no token: App credentials only');
    // The exact request list of one REST find each (the batched look-ups' requests depend on which repository goes first).
    const oneByOne = { GITHUB_BATCHED_LOOKUPS: 'false' };
    let bridge = await world.bridge(oneByOne);
    const ready = await bridge.waitFor('ready', async () => {
      const r = await bridge.readyz();
      // Ready from the start (events queue durably); nothing degraded once the Kubernetes API answered.
      return r.status === 200 && r.body.degraded?.length === 0 && r.body;
    });
    t.same(ready, { ready: true, reasons: [], degraded: [] });
    // The workloads appear once the bridge runs, so the credential check is surely its first request.
    putDeployment(world, 'web', 'ghcr.io/acme/web:1', annotated('acme/web', sha('app-1')));
    putDeployment(world, 'partner', 'ghcr.io/globex/api:1', annotated('globex/api', sha('app-g')));
    putKustomization(world, 'apps', ['web', 'partner'], READY);
    await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'));
    await bridge.waitFor('success', () => clientStates(world.github.deployments('acme', 'web')[0]).includes('success'));
    let state = await bridge.waitFor('idle', () => idle(bridge));

    const gh = world.github.requests.map((r) => `${r.method} ${r.path} ${r.status} ${r.credential}`);
    // The two repositories are handled in either order: compare as sets.
    t.same(
      [...gh].sort(),
      [
        'GET /app 200 jwt',
        'GET /repos/acme/web/installation 200 jwt',
        `POST /app/installations/${APP_INSTALLATION_ID}/access_tokens 201 jwt`,
        'GET /repos/acme/web/deployments 200 installation',
        'POST /repos/acme/web/deployments 201 installation',
        `POST /repos/acme/web/deployments/${world.github.deployments('acme', 'web')[0]!.id}/statuses 201 installation`,
        'GET /repos/globex/api/installation 404 jwt',
      ].sort(),
      'every request, with the credential the simulator verified',
    );
    t.equal(gh[0], 'GET /app 200 jwt', 'the credential check comes first');
    t.same(world.github.writes().length, 2, 'one create and one status');
    t.same(world.github.deployments('globex', 'api'), []);
    t.match(state.skipped, [
      {
        workload: 'Deployment/apps/partner',
        code: 'github_not_installed',
        reason: /^App not installed on globex\/api: install the GitHub App on globex/,
      },
    ]);
    t.match(state.github, {
      auth: 'app',
      credentials: { state: 'ok' },
      paused: null,
      refusals: [{ key: 'repo:github:globex/api', code: 'github_not_installed', waiting: true }],
    });
    t.ok(
      state.github.budgets.some((b) => b.scope === `installation ${APP_INSTALLATION_ID}`),
      'the installation budget is shown',
    );
    t.same(world.github.violations, []);
    const metrics = await bridge.metrics();
    t.match(
      metrics,
      /gdb_forge_requests_total\{forge="github",operation="POST \/app\/installations\/\{installation_id\}\/access_tokens",status="201"\} 1/,
    );
    t.match(metrics, /gdb_forge_refusals\{forge="github",code="github_not_installed"\} 1/);
    t.match(metrics, /gdb_forge_credentials_ok\{forge="github"\} 1/);

    // A restart: the installation comes from SQLite, the refusal too (globex is not asked again); only a new token is minted.
    await bridge.kill('SIGTERM');
    const before = world.github.requests.length;
    putDeployment(world, 'web', 'ghcr.io/acme/web:2', annotated('acme/web', sha('app-2')));
    finishRollout(world.kube, 'apps', 'web');
    bridge = await world.bridge(oneByOne);
    await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'));
    await bridge.waitFor('second success', () => clientStates(world.github.deployments('acme', 'web')[1]).includes('success'));
    state = await bridge.waitFor('idle again', () => idle(bridge));
    const after = world.github.requests.slice(before).map((r) => `${r.method} ${r.path.replace(/\d+/g, 'N')} ${r.credential}`);
    t.notOk(
      after.some((r) => r.includes('/installation ')),
      'no installation look-up after the restart',
    );
    t.same(after.filter((r) => r.includes('access_tokens')).length, 1, 'one new token');
    t.match(state.skipped, [{ code: 'github_not_installed' }], 'globex still skipped without asking GitHub');
  },
);

t.test('a wrong App key: not ready with the reason; nothing written', async (t) => {
  // GitHub answers after 1 s: the first reconcile must not ask GitHub before the credential check answered.
  const world = await startWorld({ app: true, github: { latencyMs: 1000 } });
  t.teardown(() => world.close());
  const wrong = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  putDeployment(world, 'web', 'ghcr.io/acme/web:1', annotated('acme/web', sha('wrong-1')));
  putKustomization(world, 'web', ['web'], READY);
  const bridge = await world.bridge({ GITHUB_APP_PRIVATE_KEY: wrong });
  const r = await bridge.waitFor('not ready', async () => {
    const x = await bridge.readyz();
    return x.status === 503 && x.body.reasons.some((s) => s.startsWith('GitHub')) && x.body;
  });
  t.match(
    r.reasons.filter((s) => s.startsWith('GitHub')),
    [/^GitHub credentials rejected: 401 A JSON web token could not be decoded \(next check /],
  );
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  const state = await bridge.waitFor('queued, paused', async () => {
    const s = await bridge.state();
    return s.fluxObjects.length + s.queue.pending > 0 && s;
  });
  t.match(state.github, { credentials: { state: 'rejected' }, paused: { kind: 'credentials' } });
  t.same(world.github.writes(), []);
  t.same(
    world.github.requests.map((q) => `${q.method} ${q.path} ${q.status}`),
    ['GET /app 401'],
    'only the check reached GitHub',
  );
});
