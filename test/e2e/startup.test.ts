import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { MAIN_JS } from '../harness/bridge-process.js';
import { deployment, kustomization } from '../harness/flux-objects.js';
import { startWorld } from '../harness/world.js';

t.test('bad configuration: every problem reported at once, exit status 2', async (t) => {
  const child = spawn(process.execPath, [MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', RESYNC_INTERVAL: 'soon', LOG_LEVEL: 'loud', GITHUB_API_URL: 'not a url' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  t.equal(code, 2);
  for (const name of [
    'WEBHOOK_TOKEN',
    'GITHUB_TOKEN',
    'CLUSTER_NAME',
    'RESYNC_INTERVAL="soon"',
    'LOG_LEVEL="loud"',
    'GITHUB_API_URL="not a url"',
  ]) {
    t.match(stderr, name, `names ${name}`);
  }
});

t.test('no kubeconfig and no cluster: one line that says what to do, exit status 1', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'no-kubeconfig-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes',
    GITHUB_TOKEN: 't',
    CLUSTER_NAME: 'c',
  };
  const child = spawn(process.execPath, [MAIN_JS], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  t.equal(code, 1);
  t.equal(
    stderr,
    `github-deployment-bridge: failed to start: no kubeconfig found at ${join(home, '.kube', 'config')} and not running in a ` +
      'cluster (KUBERNETES_SERVICE_HOST unset): set KUBECONFIG or run in a cluster\n',
  );
  t.notMatch(stderr, /insecure-skip-tls-verify/);
});

t.test('SIGTERM: stops taking events, finishes, exits 0; the database stays usable', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const bridge = await world.bridge();
  t.equal((await bridge.get('/healthz')).status, 200);
  t.equal(await bridge.kill('SIGTERM'), 0);
  t.ok(bridge.logs.some((l) => l.msg === 'stopped'));
  const again = await world.bridge();
  const ready = await again.waitFor('ready', async () => {
    const r = await again.readyz();
    // Ready from the start (events queue durably); nothing degraded once the Kubernetes API answered.
    return r.status === 200 && r.body.degraded?.length === 0 && r.body;
  });
  t.same(ready, { ready: true, reasons: [], degraded: [] }, 'ready again on the same database once the Kubernetes API answered');
  t.equal((await again.state()).dryRun, false, '/state says it is no dry run');
});

t.test('DRY_RUN: everything but GitHub writes, which are logged', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0.0' }],
      annotations: {
        'github-deployment-bridge.io/auto-report': 'true',
        'github-deployment-bridge.io/repository': 'acme/web',
        'github-deployment-bridge.io/commit': 'a'.repeat(40),
      },
    }),
  );
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name: 'web',
      inventory: [{ namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' }],
    }),
  );
  const bridge = await world.bridge({ DRY_RUN: 'true' });
  await bridge.waitFor('dry-run status logged', () => bridge.logs.some((l) => l.msg === 'DRY_RUN: would send a deployment status'));
  t.ok(bridge.logs.some((l) => l.msg === 'DRY_RUN: would create a GitHub deployment' && l.deploymentId === -1));
  t.notOk(
    bridge.logs.some((l) => l.msg === 'created GitHub deployment'),
    'nothing claims a deployment was created',
  );
  t.equal(world.github.writes().length, 0, 'nothing written to GitHub');
  t.ok(
    world.github.requests.some((r) => r.method === 'GET' && r.path.endsWith('/deployments')),
    'reads still go to GitHub',
  );
  const state = await bridge.state();
  t.equal(state.dryRun, true, '/state says it is a dry run');
  t.match(state.deployments, [{ repo: 'web', state: 'success' }]);
  t.ok(state.deployments[0]!.deploymentId! < 0, 'a dry-run deployment id can never be taken for a real one');
});

t.test(
  'open defaults said at start: no ALLOWED_REPOSITORIES, /state without a token, plain-http forges; /state names the trust',
  async (t) => {
    const world = await startWorld();
    t.teardown(() => world.close());
    const open = await world.bridge();
    const warnings = () => open.logs.filter((l) => l.level === 40).map((l) => String(l.msg).split(':')[0]);
    await open.waitFor('the start-up notices', () => warnings().includes('/state is open'));
    t.same(warnings(), ['ALLOWED_REPOSITORIES is not set', '/state is open', 'ALLOW_HTTP_FORGE_URLS=true']);
    t.match(
      open.logs.find((l) => String(l.msg).startsWith('ALLOW_HTTP_FORGE_URLS')),
      { plainHttp: ['GITHUB_API_URL'] },
    );
    t.same((await open.state()).trust, { mode: 'open', patterns: 0, repositorySource: 'any' });
    await open.kill();

    const token = 'a-state-token-of-at-least-32-bytes';
    const closed = await world.bridge({ ALLOWED_REPOSITORIES: 'acme/*,partner/shop', STATE_TOKEN: token });
    const res = await fetch(`${closed.url}/state`, { headers: { authorization: `Bearer ${token}` } });
    t.same(((await res.json()) as { trust: unknown }).trust, { mode: 'allow-list', patterns: 2, repositorySource: 'any' });
    t.notOk(
      closed.logs.some((l) => /^(ALLOWED_REPOSITORIES is not set|\/state is open)/.test(String(l.msg))),
      'nothing to warn about',
    );
  },
);
