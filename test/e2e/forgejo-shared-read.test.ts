/**
 * The real bridge against the Forgejo simulator: the contexts of one commit that are new together share one read
 * of its statuses: four environments of one commit in one Kustomization cost one GET, two of another commit in a
 * second Kustomization one more. A restarted process keeps no read: a context new after it reads once more.
 * Every status is sent once.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { queueIdle } from '../harness/state-body.js';
import { startWorld } from '../harness/world.js';
import { OPT_IN, READY, putDeployment, putKustomization, sha } from './scenario.js';

const A = sha('forgejo-shared-read-a');
const B = sha('forgejo-shared-read-b');
const CLUSTER = 'sim-cluster';

t.test('new contexts of a commit in one Kustomization: one read of its statuses; after a restart, one more', async (t) => {
  const world = await startWorld({ forgejo: { repos: ['acme/shop'], commits: { 'acme/shop': [A, B] } } });
  t.teardown(() => world.close());
  const forgejo = world.forgejo!;
  const put = (app: string, environment: string, commit = app === 'admin' || app === 'docs' ? B : A) =>
    putDeployment(world, app, `registry.invalid/acme/shop:${commit.slice(0, 7)}`, {
      ...OPT_IN,
      'github-deployment-bridge.io/repository': `${forgejo.url}/acme/shop`,
      'github-deployment-bridge.io/commit': commit,
      'github-deployment-bridge.io/environment': environment,
    });
  const apps = ['web', 'api', 'worker', 'cron', 'admin', 'docs'];
  apps.forEach((app, i) => put(app, `env-${i}`));
  putKustomization(world, 'four', apps.slice(0, 4), READY);
  putKustomization(world, 'two', apps.slice(4), READY);
  const readsOf = (c: string) => forgejo.requests.filter((r) => r.method === 'GET' && r.path === `/repos/acme/shop/statuses/${c}`).length;
  const contexts = () => [A, B].flatMap((c) => forgejo.statuses('acme', 'shop', c).map((s) => `${s.context} ${s.state}`));
  const settled = async (bridge: Awaited<ReturnType<typeof world.bridge>>, n: number) => {
    await bridge.waitFor(`${n} statuses`, () => contexts().length >= n);
    await bridge.waitFor('queue idle', async () => queueIdle(await bridge.state()));
  };

  let bridge = await world.bridge();
  await settled(bridge, 6);
  t.same(contexts().sort(), apps.map((_, i) => `deploy/env-${i} (${CLUSTER}) success`).sort(), 'one success per context');
  t.equal(readsOf(A), 1, 'four new contexts of A in one Kustomization: one read');
  t.equal(readsOf(B), 1, 'two of B in another: one read');
  t.same(
    (await bridge.state()).forgejo?.sharedReads,
    { reads: 2, shared: 4, again: 0 },
    '/state: two reads, four look-ups answered by a read another asked for',
  );

  await bridge.kill('SIGTERM');
  put('search', 'env-6', B);
  putKustomization(world, 'two', [...apps.slice(4), 'search'], READY, 2);
  bridge = await world.bridge();
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'two', { reason: 'ReconciliationSucceeded' }));
  await settled(bridge, 7);
  t.same([readsOf(A), readsOf(B)], [1, 2], 'a new context of B after the restart: one read more (nothing kept across processes)');
  t.equal(contexts().length, 7, 'nothing sent twice');
  t.same(forgejo.violations, []);
});
