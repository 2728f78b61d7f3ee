import { execFile } from 'node:child_process';
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
  t.equal(world.github.requests.length, 0, 'no GitHub request at all');
  t.equal(world.kube.writes().length, 0);

  const bad = await run(process.execPath, [MAIN_JS, 'explain', 'GitRepository/x'], { env: { PATH: process.env.PATH ?? '', ...env } }).catch(
    (e: unknown) => e,
  );
  t.match(bad, { code: 2, stderr: /usage: github-deployment-bridge explain/ });
});
