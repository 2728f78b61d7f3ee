/**
 * Outbound proxies end to end: the real bridge process with HTTPS_PROXY/HTTP_PROXY naming a real
 * tinyproxy and NO_PROXY naming the (fake) Kubernetes API. GitHub (an App: its tokens too), Forgejo
 * and the real registry are reached through the proxy, every request of them; the Kubernetes API never is.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { startTinyproxy } from '../harness/tinyproxy.js';
import { startWorld } from '../harness/world.js';
import { READY, idle, pushAppImage, putDeployment, putKustomization, sha } from './scenario.js';

const A = sha('proxy-a');

t.test('GitHub, Forgejo and the registry through a real proxy; the Kubernetes API direct (NO_PROXY)', async (t) => {
  const proxy = await startTinyproxy();
  t.teardown(() => proxy.close());
  // A GitHub App: its token requests (installation look-up, access tokens) go through the proxy too.
  const world = await startWorld({ app: true, registry: true, forgejo: { repos: ['acme/shop'], commits: { 'acme/shop': [A] } } });
  t.teardown(() => world.close());
  const forgejo = world.forgejo!;
  const registry = world.registry!;
  // Repository and commit come from the images' labels: the registry is read for both.
  const githubImage = await pushAppImage(world, 'web', '1.0.0', A);
  const forgejoImage = await pushAppImage(world, 'shop', '2.0.0', A, { 'org.opencontainers.image.source': `${forgejo.url}/acme/shop` });
  putDeployment(world, 'web', githubImage);
  putDeployment(world, 'shop', forgejoImage);
  putKustomization(world, 'apps', ['web', 'shop'], READY);

  const kube = new URL(world.kube.url).host;
  const bridge = await world.bridge({ HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NO_PROXY: kube });
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'))).status, 202);
  await bridge.waitFor(
    'both forges told',
    () => forgejo.statuses('acme', 'shop', A).length === 1 && world.github.deployments('acme', 'web')[0]?.statuses.length,
  );
  await bridge.waitFor('reconciled', () => idle(bridge));

  t.match(forgejo.statuses('acme', 'shop', A), [{ state: 'success', context: 'deploy/staging (sim-cluster)' }]);
  t.match(world.github.deployments('acme', 'web'), [{ sha: A, statuses: [{ state: 'success' }] }]);
  t.same((await bridge.state()).skipped, [], 'both images read from the registry');

  const requests = await proxy.requests();
  const through = (host: string) => requests.filter((r) => r.host === host).length;
  const github = new URL(world.github.url).host;
  t.ok(
    world.github.requests.some((r) => r.path.endsWith('/access_tokens')),
    'GitHub was called, an App token minted',
  );
  t.equal(through(github), world.github.requests.length, 'every GitHub request went through the proxy');
  t.ok(forgejo.requests.length > 0, 'Forgejo was called');
  t.equal(through(new URL(forgejo.url).host), forgejo.requests.length, 'every Forgejo request went through the proxy');
  t.ok(through(registry.host) > 0, 'the registry was read through the proxy');
  t.equal(through(kube), 0, 'the Kubernetes API is reached directly (its client ignores the variables; NO_PROXY names it too)');
  t.ok(world.kube.requests.length > 0, 'yet it was read');
  t.same(
    requests.filter((r) => r.method === 'CONNECT'),
    [],
    'plain-HTTP targets are absolute-URI requests: proxies refusing CONNECT to ports but 443 forward them',
  );
  t.match(
    bridge.logs.filter((l) => String(l.msg).startsWith('outbound proxy')),
    [{ httpsProxy: proxy.url, httpProxy: proxy.url, noProxy: [kube] }],
    'logged once at start',
  );
  t.same(forgejo.violations, []);
  t.same(world.github.violations, []);
});
