/**
 * A resync pass with nothing changed reads the cluster by list calls per namespace, not a GET per
 * object, and writes nothing to GitHub; an event still reads its source and workloads fresh.
 */
import t from 'tap';
import { annotated } from '../../bench/common.js';
import { fluxEvent } from '../harness/bridge-process.js';
import { deployment, kustomization } from '../harness/flux-objects.js';
import { finishRollout } from '../harness/rollouts.js';
import { startWorld } from '../harness/world.js';
import { READY, sha } from './scenario.js';

const NAMESPACES = ['shop', 'search', 'auth'];
const PER_NAMESPACE = 4;
const LIST = /^\/apis\/kustomize\.toolkit\.fluxcd\.io\/v1\/kustomizations$/;

t.test('an unchanged resync pass costs list calls per namespace, whatever the number of workloads', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  for (const ns of NAMESPACES) {
    const names = Array.from({ length: PER_NAMESPACE }, (_, i) => `${ns}-${i}`);
    for (const n of names) {
      world.kube.put(
        deployment({
          namespace: ns,
          name: n,
          annotations: annotated(n, sha(n)),
          containers: [{ name: 'app', image: `registry.invalid/acme/${n}:1` }],
        }),
      );
      finishRollout(world.kube, ns, n);
    }
    world.kube.put(
      kustomization({
        namespace: 'flux-system',
        name: ns,
        conditions: READY,
        inventory: names.map((n) => ({ namespace: ns, name: n, group: 'apps', kind: 'Deployment' })),
      }),
    );
  }
  const total = NAMESPACES.length * PER_NAMESPACE;
  const bridge = await world.bridge({ RESYNC_INTERVAL: '2s', GITHUB_WRITE_INTERVAL: '0s' });
  const passStarts = () => world.kube.requests.flatMap((r, i) => (LIST.test(r.path) ? [i] : []));
  await bridge.waitFor(
    'every workload reported',
    () => world.github.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/statuses')).length === total,
  );
  // A pass that starts after the last status and is followed by another: it read everything and changed nothing.
  const ghBefore = world.github.requests.length;
  const first = passStarts().length;
  await bridge.waitFor('two more resync passes', () => passStarts().length >= first + 2, 30_000);
  const [from, to] = passStarts().slice(first, first + 2) as [number, number];
  const pass = world.kube.requests.slice(from, to).map((r) => `${r.method} ${r.path}`);
  t.same(
    pass.filter((p) => /\/(deployments|pods|kustomizations)\/[^/]+$/.test(p)),
    [],
    'no GET of a single object',
  );
  t.equal(pass.length, 2 + 2 * NAMESPACES.length, 'Flux lists, then one deployments list and one pods list per namespace');
  t.same(pass.filter((p) => p.includes('/namespaces/shop/')).sort(), [
    'GET /api/v1/namespaces/shop/pods',
    'GET /apis/apps/v1/namespaces/shop/deployments',
  ]);
  t.same(
    world.github.requests.slice(ghBefore).filter((r) => r.method !== 'GET'),
    [],
    'no GitHub write',
  );

  // An event reads fresh: its source and its workloads by name.
  const before = world.kube.requests.length;
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'auth'));
  await bridge.waitFor('event read', () =>
    world.kube.requests.slice(before).some((r) => r.path === '/apis/apps/v1/namespaces/auth/deployments/auth-3'),
  );
  t.ok(
    world.kube.requests
      .slice(before)
      .some((r) => r.path === '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/auth'),
  );
  t.equal(world.github.deployments('acme', 'auth-0').length, 1, 'one deployment, however many passes');
});
