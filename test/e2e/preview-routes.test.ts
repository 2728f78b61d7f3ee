/** Preview URLs found by themselves: the Ingress or HTTPRoute of a preview's inventory gives `environment_url`. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { MAIN_JS, fluxEvent } from '../harness/bridge-process.js';
import { kustomization, type InventoryRef } from '../harness/flux-objects.js';
import { httpRoute, ingress, service } from '../harness/route-objects.js';
import { queueIdle } from '../harness/state-body.js';
import type { World } from '../harness/world.js';
import { startWorld } from '../harness/world.js';
import { OPT_IN, READY, putDeployment, sha } from './scenario.js';

const NS = 'apps';
const SERVICE: InventoryRef = { namespace: NS, name: '', group: '', kind: 'Service' };

/** A preview `pr-<n>`: Deployment `<app>` (repository acme/<app>, annotated), its Service, and the given routing entries. */
function putPreview(world: World, app: string, routes: Array<'Ingress' | 'HTTPRoute'>, annotations: Record<string, string> = {}): void {
  putDeployment(world, app, `ghcr.io/acme/${app}:pr`, {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': `acme/${app}`,
    'github-deployment-bridge.io/commit': sha(app),
    'github-deployment-bridge.io/environment': `pr-${app}`,
    ...annotations,
  });
  world.kube.put(service({ namespace: NS, name: app }));
  const host = `${app}.preview.example.com`;
  const inventory: InventoryRef[] = [
    { namespace: NS, name: app, group: 'apps', kind: 'Deployment' },
    { ...SERVICE, name: app },
  ];
  for (const kind of routes) {
    if (kind === 'Ingress') world.kube.put(ingress({ namespace: NS, name: app, host, path: '/shop', service: app, tls: true }));
    else world.kube.put(httpRoute({ namespace: NS, name: app, host, path: '/app', service: app }));
    inventory.push({ namespace: NS, name: app, group: kind === 'Ingress' ? 'networking.k8s.io' : 'gateway.networking.k8s.io', kind });
  }
  world.kube.put(kustomization({ namespace: 'flux-system', name: `preview-${app}`, conditions: READY, inventory }));
}

/** The `environment_url` of the last status of acme/<app>'s deployment, once it succeeded. */
async function successUrl(world: World, bridge: { waitFor<T>(what: string, check: () => T | false): Promise<T> }, app: string) {
  const status = await bridge.waitFor(`${app} success`, () => {
    const last = world.github.deployments('acme', app)[0]?.statuses.at(-1);
    return last?.state === 'success' && last;
  });
  return status.environment_url;
}

t.test('an Ingress with tls, an HTTPRoute, and an annotation that wins', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  putPreview(world, 'ing', ['Ingress']);
  putPreview(world, 'gw', ['HTTPRoute']);
  putPreview(world, 'anno', ['Ingress'], { 'github-deployment-bridge.io/environment-url': 'https://{name}.annotated.example.com' });
  const bridge = await world.bridge({ ENVIRONMENT_URL: 'https://default.example.com' });

  t.equal(await successUrl(world, bridge, 'ing'), 'https://ing.preview.example.com/shop', 'Ingress: https (its host is under tls)');
  t.equal(await successUrl(world, bridge, 'gw'), 'https://gw.preview.example.com/app', 'HTTPRoute: https by default');
  t.equal(await successUrl(world, bridge, 'anno'), 'https://anno.annotated.example.com', 'the annotation wins');
  t.notOk(
    world.kube.requests.some((r) => r.path.endsWith('/ingresses/anno')),
    'a workload with an annotated URL costs no route reads',
  );
  t.same(world.github.violations, []);
  t.same(world.kube.writes(), []);

  const { stdout } = await promisify(execFile)(process.execPath, [MAIN_JS, 'explain', 'Kustomization/flux-system/preview-ing'], {
    env: { PATH: process.env.PATH ?? '', ...world.env() },
  });
  t.match(stdout, /environment_url https:\/\/ing\.preview\.example\.com\/shop \(from Ingress apps\/ing\)/, 'explain names the route');
});

t.test('without RBAC for Ingresses: reported without a URL, the reason logged once', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.kube.allow = [
    { group: 'kustomize.toolkit.fluxcd.io', resource: '*', verbs: ['get', 'list'] },
    { group: 'helm.toolkit.fluxcd.io', resource: '*', verbs: ['get', 'list'] },
    { group: 'apps', resource: '*', verbs: ['get', 'list'] },
    { group: '', resource: '*', verbs: ['get', 'list'] },
  ];
  putPreview(world, 'web', ['Ingress']);
  const bridge = await world.bridge();

  t.notOk(await successUrl(world, bridge, 'web'), 'no environment_url, and no failure');
  const reads = () => world.kube.requests.filter((r) => r.path.endsWith('/kustomizations/preview-web')).length;
  const before = reads();
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'preview-web', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await bridge.waitFor('the event handled', async () => {
    const s = await bridge.state();
    return reads() > before && queueIdle(s) && s;
  });
  const refused = bridge.logs.filter((l) => /no RBAC to (get|list) ingresses/.test(String(l.msg)));
  t.equal(refused.length, 1, 'said once');
  t.match(refused[0], { level: 40, kind: 'Ingress' });
  t.equal(world.kube.requests.filter((r) => r.path.includes('/ingresses/')).length, 1, 'a refused kind is not asked again at once');
  t.equal((await bridge.readyz()).status, 200, 'still ready');
  t.same(world.github.deployments('acme', 'web').length, 1);
});
