/** getRoutingObject through the real client against the fake API, and the refusal wrapper around it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KubeError } from '../../src/common/errors.js';
import { createKubeReader } from '../../src/kube/kube-client.js';
import { createPassListings } from '../../src/kube/pass-listings.js';
import { ROUTE_REFUSAL_RECHECK_MS, withRouteRefusals } from '../../src/kube/route-refusals.js';
import { startFakeKube, writeKubeconfig } from '../harness/fake-kube.js';
import { httpRoute, ingress, service } from '../harness/route-objects.js';

const dir = mkdtempSync(join(tmpdir(), 'routing-reads-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function setup(t: { teardown(fn: () => unknown): void }, opts: Parameters<typeof startFakeKube>[0] = {}) {
  const fake = await startFakeKube({ token: 'route-token', ...opts });
  t.teardown(() => fake.close());
  const reader = createKubeReader({
    kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'cfg-')), fake.url, fake.token),
    timeoutMs: 5000,
  });
  fake.put(service({ namespace: 'apps', name: 'web' }));
  fake.put(ingress({ namespace: 'apps', name: 'web', host: 'web.example.com', path: '/shop', service: 'web', tls: true }));
  fake.put(httpRoute({ namespace: 'apps', name: 'web', host: 'web.example.com', path: '/', service: 'web' }));
  return { fake, reader };
}

t.test('Ingress, HTTPRoute and Service as served, with their kind; null when missing', async (t) => {
  const { fake, reader } = await setup(t);
  t.match(await reader.getRoutingObject('Ingress', 'apps', 'web'), {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    spec: { tls: [{ hosts: ['web.example.com'] }], rules: [{ host: 'web.example.com' }] },
  });
  t.match(await reader.getRoutingObject('HTTPRoute', 'apps', 'web'), { kind: 'HTTPRoute', spec: { hostnames: ['web.example.com'] } });
  t.strictSame(await reader.getRoutingObject('Service', 'apps', 'web'), {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'apps' },
    spec: { selector: { 'app.kubernetes.io/name': 'web' } },
  });
  for (const kind of ['Ingress', 'HTTPRoute', 'Service'] as const) t.equal(await reader.getRoutingObject(kind, 'apps', 'gone'), null, kind);
  t.strictSame(
    fake.requests.slice(0, 3).map((r) => r.path),
    [
      '/apis/networking.k8s.io/v1/namespaces/apps/ingresses/web',
      '/apis/gateway.networking.k8s.io/v1/namespaces/apps/httproutes/web',
      '/api/v1/namespaces/apps/services/web',
    ],
  );
  t.same(fake.writes(), []);
});

t.test('without RBAC: a KubeError 403; the refusal wrapper reads it as none, says so once, asks again later', async (t) => {
  const { fake, reader } = await setup(t, { allow: [{ group: '', resource: 'services', verbs: ['get'] }] });
  const err = await reader.getRoutingObject('Ingress', 'apps', 'web').catch((e: unknown) => e);
  t.ok(err instanceof KubeError && err.status === 403, 'the plain reader throws the 403');

  const warnings: unknown[] = [];
  let now = 1_000;
  const refusing = withRouteRefusals(reader, { now: () => now, log: { warn: (...args: unknown[]) => warnings.push(args) } as never });
  fake.requests.length = 0;
  t.equal(await refusing.getRoutingObject('Ingress', 'apps', 'web'), null);
  t.equal(await refusing.getRoutingObject('Ingress', 'apps', 'other'), null);
  t.equal(await refusing.getRoutingObject('HTTPRoute', 'apps', 'web'), null);
  t.match(await refusing.getRoutingObject('Service', 'apps', 'web'), { kind: 'Service' }, 'an allowed kind is still read');
  t.equal(fake.requests.length, 3, 'a refused kind is not asked again at once');
  t.equal(warnings.length, 2, 'one line per refused kind');
  t.match(warnings[0], [{ kind: 'Ingress' }, /no RBAC to get ingresses: .*networking\.k8s\.io.*ingresses/]);

  now += ROUTE_REFUSAL_RECHECK_MS;
  fake.allow = undefined;
  t.match(await refusing.getRoutingObject('Ingress', 'apps', 'web'), { kind: 'Ingress' }, 'granted later: read again');
  t.equal(warnings.length, 2);
});

t.test('other failures are not refusals: they propagate', async (t) => {
  const { fake, reader } = await setup(t);
  const refusing = withRouteRefusals(reader, { now: () => 0, log: { warn: () => undefined } as never });
  fake.inject({ path: /ingresses/, status: 500 });
  const err = await refusing.getRoutingObject('Ingress', 'apps', 'web').catch((e: unknown) => e);
  t.ok(err instanceof KubeError && err.status === 500);
});

t.test('listRoutingObjects: every object of a kind in a namespace, with its kind', async (t) => {
  const { fake, reader } = await setup(t);
  fake.put(service({ namespace: 'apps', name: 'api' }));
  fake.put(service({ namespace: 'other', name: 'elsewhere' }));
  const names = (objects: Array<{ kind?: string; metadata: { name: string } }>) =>
    objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
  t.same(names(await reader.listRoutingObjects('Service', 'apps')), ['Service/api', 'Service/web']);
  t.same(names(await reader.listRoutingObjects('Ingress', 'apps')), ['Ingress/web']);
  t.same(names(await reader.listRoutingObjects('HTTPRoute', 'apps')), ['HTTPRoute/web']);
  t.match(await reader.listRoutingObjects('Service', 'apps'), [{ spec: { selector: { 'app.kubernetes.io/name': 'api' } } }]);
});

t.test('the pass listings: one list per (kind, namespace); a refused or unserved list falls back to GETs', async (t) => {
  const { fake, reader } = await setup(t);
  const listings = createPassListings(reader, { now: () => 0 });
  fake.requests.length = 0;
  const got = await Promise.all([
    listings.reader.getRoutingObject('Service', 'apps', 'web'),
    listings.reader.getRoutingObject('Service', 'apps', 'gone'),
    listings.reader.getRoutingObject('Ingress', 'apps', 'web'),
  ]);
  t.same(
    got.map((o) => o?.kind ?? null),
    ['Service', null, 'Ingress'],
  );
  t.same(fake.requests.map((r) => r.path).sort(), [
    '/api/v1/namespaces/apps/services',
    '/apis/networking.k8s.io/v1/namespaces/apps/ingresses',
  ]);

  fake.requests.length = 0;
  fake.inject({ path: '/apis/gateway.networking.k8s.io/v1/namespaces/apps/httproutes', status: 404 });
  t.match(await listings.reader.getRoutingObject('HTTPRoute', 'apps', 'web'), { kind: 'HTTPRoute' }, 'an unserved list: read by name');
  fake.allow = [{ group: 'networking.k8s.io', resource: 'ingresses', verbs: ['get'] }];
  listings.begin();
  t.match(await listings.reader.getRoutingObject('Ingress', 'apps', 'web'), { kind: 'Ingress' }, 'a refused list: read by name');
  t.same(
    fake.requests.map((r) => `${r.status} ${r.path}`),
    [
      '404 /apis/gateway.networking.k8s.io/v1/namespaces/apps/httproutes',
      '200 /apis/gateway.networking.k8s.io/v1/namespaces/apps/httproutes/web',
      '403 /apis/networking.k8s.io/v1/namespaces/apps/ingresses',
      '200 /apis/networking.k8s.io/v1/namespaces/apps/ingresses/web',
    ],
  );
});

t.test('refusal wrapper: a refused list is thrown again without asking, and said once with the get', async (t) => {
  const { fake, reader } = await setup(t, { allow: [] });
  const warnings: unknown[] = [];
  const refusing = withRouteRefusals(reader, { now: () => 0, log: { warn: (...args: unknown[]) => warnings.push(args) } as never });
  const listings = createPassListings(refusing, { now: () => 0 });
  fake.requests.length = 0;
  t.equal(await listings.reader.getRoutingObject('Ingress', 'apps', 'web'), null, 'list refused, then get refused: none');
  listings.begin();
  t.equal(await listings.reader.getRoutingObject('Ingress', 'apps', 'web'), null);
  t.equal(fake.requests.length, 2, 'the second pass asks nothing');
  t.equal(warnings.length, 1);
});
