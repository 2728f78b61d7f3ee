import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { MAIN_JS } from '../harness/bridge-process.js';
import { pushImage } from '../harness/push-image.js';
import { startWorld } from '../harness/world.js';
import { READY, pushAppImage, putDeployment, putKustomization, sha } from './scenario.js';

const run = promisify(execFile);

t.test('explain prints what would be reported and exactly why not, without writing to GitHub', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const commit = sha('explain-web');
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', commit));
  putDeployment(world, 'legacy', 'nginx:1.27', {});
  await pushImage(world.registry!.url, 'acme/bare', '1', {});
  putDeployment(world, 'bare', `${world.registry!.host}/acme/bare:1`);
  putKustomization(world, 'apps', ['web', 'legacy', 'bare'], READY);
  // explain needs neither the webhook key nor GitHub credentials: the world's are left out.
  const env = Object.fromEntries(
    Object.entries(world.env({ ENVIRONMENT_URL: 'https://{name}.example.com' })).filter(
      ([name]) => !['WEBHOOK_TOKEN', 'GITHUB_TOKEN'].includes(name),
    ),
  );

  const { stdout } = await run(process.execPath, [MAIN_JS, 'explain', 'Kustomization/flux-system/apps'], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  t.match(stdout, /^Kustomization flux-system\/apps: success \(ReconciliationSucceeded/);
  t.match(stdout, new RegExp(`container app \\(.*acme/web:1.0.0\\) → acme/web@${commit.slice(0, 12)} environment staging`));
  t.match(stdout, /would be success/);
  t.match(stdout, /environment_url https:\/\/web\.example\.com/);
  t.match(stdout, /Deployment\/apps\/legacy: not opted in: annotate it github-deployment-bridge\.io\/auto-report: "true"/);
  t.match(stdout, /Deployment\/apps\/bare: rollout complete[\s\S]*container app: not reported: .*org\.opencontainers\.image\.source/);
  const short = await run(process.execPath, [MAIN_JS, 'explain', 'ks/flux-system/apps'], { env: { PATH: process.env.PATH ?? '', ...env } });
  t.equal(short.stdout, stdout, 'the kind as kubectl takes it, `ks`, reads the same object');
  t.equal(world.github.requests.length, 0, 'no GitHub request at all');
  t.equal(world.kube.writes().length, 0);

  const bad = await run(process.execPath, [MAIN_JS, 'explain', 'GitRepository/x'], { env: { PATH: process.env.PATH ?? '', ...env } }).catch(
    (e: unknown) => e,
  );
  t.match(bad, { code: 2, stderr: /usage: github-deployment-bridge explain .*short: ks, hr/ });
});

t.test('explain without a kubeconfig or a cluster says to set KUBECONFIG, exit status 1', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'no-kubeconfig-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const failed = await run(process.execPath, [MAIN_JS, 'explain', 'ks/flux-system/apps'], {
    env: { PATH: process.env.PATH ?? '', HOME: home, CLUSTER_NAME: 'c' },
  }).catch((e: unknown) => e);
  t.has(failed, {
    code: 1,
    stderr:
      `github-deployment-bridge explain: no kubeconfig found at ${join(home, '.kube', 'config')} and not running in a ` +
      'cluster (KUBERNETES_SERVICE_HOST unset): set KUBECONFIG or run in a cluster\n',
  });
});

t.test('explain of a Flux object the cluster does not have: says so, exit status 3', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const missing = await run(process.execPath, [MAIN_JS, 'explain', 'ks/flux-system/nowhere'], {
    env: { PATH: process.env.PATH ?? '', KUBECONFIG: world.kubeconfig, CLUSTER_NAME: 'sim-cluster' },
  }).catch((e: unknown) => e);
  t.has(missing, {
    code: 3,
    stdout: 'Kustomization flux-system/nowhere: not found in the cluster (nothing reported; live deployments of it are cleaned up)\n',
  });
});
