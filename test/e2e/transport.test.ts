/**
 * The bridge's transport (src/common/http-transport.ts) end to end: without an outbound proxy, a bridge that
 * tells GitHub (an App: its tokens too) and Forgejo and reads a real registry never loads undici, Node's fetch,
 * whose memory (about 25 MiB on Node 24) was more than the bridge's whole heap. test/e2e/proxy.test.ts covers
 * the same run through a proxy, where Node's fetch carries it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../fixtures/locate.js';
import { fluxEvent } from '../harness/bridge-process.js';
import { startWorld } from '../harness/world.js';
import { READY, idle, pushAppImage, putDeployment, putKustomization, sha } from './scenario.js';

const A = sha('transport-a');
const PRELOAD = join(REPO_ROOT, 'dist', 'test', 'harness', 'module-list.js');

t.test('GitHub (an App), Forgejo and the registry told and read without loading undici', async (t) => {
  const world = await startWorld({ app: true, registry: true, forgejo: { repos: ['acme/shop'], commits: { 'acme/shop': [A] } } });
  t.teardown(() => world.close());
  const forgejo = world.forgejo!;
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', A));
  const shop = await pushAppImage(world, 'shop', '2.0.0', A, { 'org.opencontainers.image.source': `${forgejo.url}/acme/shop` });
  putDeployment(world, 'shop', shop);
  putKustomization(world, 'apps', ['web', 'shop'], READY);

  const list = join(world.dir, 'modules.txt');
  const before = process.env.BRIDGE_NODE_ARGS;
  process.env.BRIDGE_NODE_ARGS = `--import ${PRELOAD}`;
  t.teardown(() => (before === undefined ? delete process.env.BRIDGE_NODE_ARGS : (process.env.BRIDGE_NODE_ARGS = before)));
  const bridge = await world.bridge({ MODULE_LIST_FILE: list });
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'))).status, 202);
  await bridge.waitFor(
    'both forges told',
    () => forgejo.statuses('acme', 'shop', A).length === 1 && world.github.deployments('acme', 'web')[0]?.statuses.length,
  );
  await bridge.waitFor('reconciled', () => idle(bridge));
  t.match(world.github.deployments('acme', 'web'), [{ sha: A, statuses: [{ state: 'success' }] }]);
  t.ok(
    world.github.requests.some((r) => r.path.endsWith('/access_tokens')),
    'an App token minted',
  );
  t.same((await bridge.state()).skipped, [], 'both images read from the registry');
  t.equal(await bridge.kill('SIGTERM'), 0);

  const modules = readFileSync(list, 'utf8').split('\n');
  t.ok(modules.includes('NativeModule http'), 'the list is of this process: node:http is in it');
  t.same(
    modules.filter((m) => /undici/.test(m)),
    [],
    'undici never loaded',
  );
});
