import { Agent, request } from 'node:http';
import t from 'tap';
import type { ObjectMeta } from '../../src/kube/kube-types.js';
import { startFakeKube, type FakeKube } from './fake-kube.js';
import { deployment, kustomization, namespace, replicaSet } from './flux-objects.js';
import { httpRoute, ingress, service } from './route-objects.js';

const KS = '/apis/kustomize.toolkit.fluxcd.io/v1';
const APPS = '/apis/apps/v1';

/**
 * What these tests read from the fake's JSON: an object, a list (`items`, `metadata.continue`) or a
 * Status (`message`, `reason`, `details`). Declared, not checked: a field that is not there fails the test.
 */
interface Served {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta & { creationTimestamp?: string; continue?: string; remainingItemCount?: number };
  spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ image: string }> } } };
  status: { phase?: string; readyReplicas?: number };
  items: Served[];
  message?: string;
  reason?: string;
  details?: Record<string, string>;
}

async function get(fake: FakeKube, path: string, init: { token?: string | null; method?: string } = {}) {
  const headers: Record<string, string> = {};
  const token = init.token === undefined ? fake.token : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(fake.url + path, { method: init.method ?? 'GET', headers, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Served, type: res.headers.get('content-type') };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** Waits (bounded) until the condition holds; for ordering, not timing. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!cond()) throw new Error('condition never held');
}

const web = (name: string, ns = 'apps', labels: Record<string, string> = {}) =>
  deployment({ namespace: ns, name, labels, containers: [{ name: 'app', image: `ghcr.io/acme/${name}:1.0.0` }] });

t.test('serves a stored object with server-set metadata', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('web'));
  const r = await get(fake, `${APPS}/namespaces/apps/deployments/web`);
  t.equal(r.status, 200);
  t.equal(r.type, 'application/json');
  t.equal(r.body.apiVersion, 'apps/v1');
  t.equal(r.body.kind, 'Deployment');
  t.equal(r.body.metadata.generation, 1);
  t.match(r.body.metadata.uid, /^[0-9a-f-]{36}$/);
  t.match(r.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.match(r.body.metadata.resourceVersion, /^\d+$/);
  t.equal(r.body.spec.template.spec.containers[0]!.image, 'ghcr.io/acme/web:1.0.0');
});

t.test('404s are byte-for-byte Status bodies like kube-apiserver', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  const missing = await get(fake, `${APPS}/namespaces/apps/deployments/x`);
  t.equal(missing.status, 404);
  t.equal(
    missing.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"x\\" not found",' +
      '"reason":"NotFound","details":{"name":"x","group":"apps","kind":"deployments"},"code":404}',
  );
  const pod = await get(fake, '/api/v1/namespaces/apps/pods/p');
  t.same(pod.body.details, { name: 'p', kind: 'pods' }, 'core group has no group in details');
  t.equal(pod.body.message, 'pods "p" not found');
  for (const path of [`${APPS}/namespaces/apps/widgets`, '/apis/nope.example.com/v1/things', '/healthz', `${APPS}/deployments/web`]) {
    const r = await get(fake, path);
    t.equal(r.status, 404, path);
    t.equal(r.body.message, 'the server could not find the requested resource', path);
  }
});

t.test('lists: namespaced, all namespaces, cluster-scoped, item shape', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('b', 'apps'));
  fake.put(web('a', 'apps'));
  fake.put(web('c', 'other'));
  fake.put(kustomization({ name: 'apps', inventory: [] }));
  fake.put(namespace('apps'));

  const ns = await get(fake, `${APPS}/namespaces/apps/deployments`);
  t.equal(ns.body.kind, 'DeploymentList');
  t.equal(ns.body.apiVersion, 'apps/v1');
  t.match(ns.body.metadata.resourceVersion, /^\d+$/);
  t.same(
    ns.body.items.map((i) => i.metadata.name),
    ['a', 'b'],
    'sorted by name',
  );
  t.equal(ns.body.items[0]!.kind, undefined, 'built-in list items carry no kind, like the real server');

  const all = await get(fake, `${APPS}/deployments`);
  t.same(
    all.body.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`),
    ['apps/a', 'apps/b', 'other/c'],
  );

  const ks = await get(fake, `${KS}/kustomizations`);
  t.equal(ks.body.kind, 'KustomizationList');
  t.equal(ks.body.items[0]!.kind, 'Kustomization', 'custom resource items keep kind');
  t.equal(ks.body.items[0]!.apiVersion, 'kustomize.toolkit.fluxcd.io/v1');

  const nsList = await get(fake, '/api/v1/namespaces');
  t.same(
    nsList.body.items.map((i) => i.metadata.name),
    ['apps'],
  );
  t.equal((await get(fake, '/api/v1/namespaces/apps')).body.status.phase, 'Active');
  t.equal((await get(fake, `${APPS}/namespaces/empty/deployments`)).body.items.length, 0);
});

t.test('label and field selectors', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('a', 'apps', { tier: 'front', team: 'x' }));
  fake.put(web('b', 'apps', { tier: 'back', team: 'x' }));
  fake.put(web('c', 'apps', { tier: 'db' }));
  const names = async (q: string) => (await get(fake, `${APPS}/namespaces/apps/deployments?${q}`)).body.items.map((i) => i.metadata.name);
  t.same(await names('labelSelector=tier%3Dfront'), ['a']);
  t.same(await names(`labelSelector=${encodeURIComponent('team=x,tier!=front')}`), ['b']);
  t.same(await names(`labelSelector=${encodeURIComponent('tier in (front,db)')}`), ['a', 'c']);
  t.same(await names(`labelSelector=${encodeURIComponent('tier notin (front),!team')}`), ['c']);
  t.same(await names('labelSelector=team'), ['a', 'b']);
  t.same(await names('fieldSelector=metadata.name%3Db'), ['b']);
  const bad = await get(fake, `${APPS}/namespaces/apps/deployments?fieldSelector=spec.replicas%3D1`);
  t.equal(bad.status, 400);
  t.equal(bad.body.reason, 'BadRequest');
});

t.test('pagination with limit and continue', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  for (const n of ['a', 'b', 'c', 'd', 'e']) fake.put(web(n));
  const seen: string[] = [];
  let cont = '';
  let pages = 0;
  do {
    const r = await get(fake, `${APPS}/deployments?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    seen.push(...r.body.items.map((i) => i.metadata.name));
    cont = r.body.metadata.continue ?? '';
    if (cont) t.equal(r.body.metadata.remainingItemCount, 5 - seen.length);
    pages++;
  } while (cont && pages < 10);
  t.same(seen, ['a', 'b', 'c', 'd', 'e']);
  t.equal(pages, 3);
  t.equal((await get(fake, `${APPS}/deployments?continue=garbage`)).status, 400);
});

t.test('put, patchStatus and delete maintain generation and resourceVersion', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  const first = fake.put(web('web'));
  t.equal(first.metadata.generation, 1);
  const same = fake.put(web('web'));
  t.equal(same.metadata.generation, 1, 'no spec change, no generation bump');
  t.equal(same.metadata.uid, first.metadata.uid);
  t.ok(Number(same.metadata.resourceVersion) > Number(first.metadata.resourceVersion));
  const changed = web('web');
  changed.spec!.replicas = 3;
  t.equal(fake.put(changed).metadata.generation, 2);
  const patched = fake.patchStatus('apps/v1', 'Deployment', 'apps', 'web', { readyReplicas: 2, conditions: null });
  t.equal(patched.metadata.generation, 2, 'status patch does not bump generation');
  t.equal(patched.status!.readyReplicas, 2);
  t.equal(patched.status!.conditions, undefined, 'null deletes (merge patch)');
  t.equal(patched.status!.replicas, 1, 'other status fields kept');
  t.equal((await get(fake, `${APPS}/namespaces/apps/deployments/web`)).body.status.readyReplicas, 2);
  t.equal(fake.get('apps/v1', 'Deployment', 'apps', 'web')?.metadata.generation, 2);
  t.equal(fake.delete('apps/v1', 'Deployment', 'apps', 'web'), true);
  t.equal(fake.delete('apps/v1', 'Deployment', 'apps', 'web'), false);
  t.equal((await get(fake, `${APPS}/namespaces/apps/deployments/web`)).status, 404);
  t.throws(() => fake.put({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'x', namespace: 'a' } }));
  fake.put(web('again'));
  fake.reset();
  t.equal(fake.requests.length, 0);
  t.equal(fake.get('apps/v1', 'Deployment', 'apps', 'again'), undefined);
});

t.test('authentication and RBAC', async (t) => {
  const fake = await startFakeKube({
    token: 'sekret',
    allow: [
      { group: 'kustomize.toolkit.fluxcd.io', resource: 'kustomizations', verbs: ['get', 'list'] },
      { group: 'apps', resource: 'deployments', verbs: ['get'], namespaces: ['apps'] },
    ],
  });
  t.teardown(() => fake.close());
  const unauth = await get(fake, `${KS}/kustomizations`, { token: 'wrong' });
  t.equal(unauth.status, 401);
  t.equal(
    unauth.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
  );
  t.equal((await get(fake, `${KS}/kustomizations`, { token: null })).status, 401);
  t.equal((await get(fake, `${KS}/kustomizations`)).status, 200);
  t.equal((await get(fake, `${APPS}/namespaces/apps/deployments/x`)).status, 404, 'allowed get of a missing object');

  const other = await get(fake, `${APPS}/namespaces/other/deployments/x`);
  t.equal(other.status, 403);
  t.equal(
    other.body.message,
    'deployments.apps "x" is forbidden: User "system:serviceaccount:flux-system:github-deployment-bridge" ' +
      'cannot get resource "deployments" in API group "apps" in the namespace "other"',
  );
  t.same(other.body.details, { name: 'x', group: 'apps', kind: 'deployments' });
  const list = await get(fake, `${APPS}/deployments`);
  t.equal(list.status, 403);
  t.match(
    list.body.message,
    /^deployments\.apps is forbidden: .* cannot list resource "deployments" in API group "apps" at the cluster scope$/,
  );
  const pods = await get(fake, '/api/v1/namespaces/apps/pods');
  t.match(pods.body.message, /^pods is forbidden: .*in API group "" in the namespace "apps"$/);
});

t.test('writes are refused and recorded', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('web'));
  await get(fake, `${APPS}/namespaces/apps/deployments/web`);
  const del = await get(fake, `${APPS}/namespaces/apps/deployments/web`, { method: 'DELETE' });
  t.equal(del.status, 405);
  t.equal(del.body.reason, 'MethodNotAllowed');
  await get(fake, `${APPS}/namespaces/apps/deployments`, { method: 'POST' });
  t.same(
    fake.writes().map((w) => `${w.method} ${w.path} ${w.status}`),
    [`DELETE ${APPS}/namespaces/apps/deployments/web 405`, `POST ${APPS}/namespaces/apps/deployments 405`],
  );
  t.ok(fake.get('apps/v1', 'Deployment', 'apps', 'web'), 'still there');
  fake.allow = [{ group: '*', resource: '*', verbs: ['get', 'list'] }];
  t.equal((await get(fake, `${APPS}/namespaces/apps/deployments/web`, { method: 'PATCH' })).status, 403);
  t.equal(fake.requests[0]?.method, 'GET');
  t.same(fake.requests[0]?.query, {});
});

t.test('fault injection: status, times, path match, reset, hang', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('web'));
  const path = `${APPS}/namespaces/apps/deployments/web`;
  const fault = fake.inject({ path: /deployments\/web$/, status: 503, times: 2 });
  t.equal((await get(fake, `${APPS}/deployments`)).status, 200, 'regexp did not match the list path');
  const first = await get(fake, path);
  t.equal(first.status, 503);
  t.equal(first.body.reason, 'ServiceUnavailable');
  t.equal((await get(fake, path)).status, 503);
  t.equal((await get(fake, path)).status, 200, 'fault used up');
  t.equal(fault.hits, 2);

  fake.inject({ path, method: 'GET', status: 429 });
  const limited = await fetch(fake.url + path, { headers: { authorization: `Bearer ${fake.token}` } });
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '1');
  await limited.text();

  fake.inject({ path, reset: true });
  t.ok(await failure(get(fake, path)), 'reset connection fails the request');

  fake.inject({ path, hang: true });
  const ac = new AbortController();
  const hanging = failure(fetch(fake.url + path, { headers: { authorization: `Bearer ${fake.token}` }, signal: ac.signal }));
  await until(() => fake.requests.some((r) => r.fault === 'hang'));
  t.equal((await get(fake, path)).status, 200, 'a single-shot hang fault hits one request only');
  ac.abort();
  t.equal(((await hanging) as Error).name, 'AbortError', 'the hung request only ends when the client gives up');
  t.equal(fake.requests.find((r) => r.fault === 'hang')?.status, 0);
});

t.test('stop() refuses connections, start() comes back on the same port', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('web'));
  const url = fake.url;
  fake.inject({ path: /./, hang: true });
  const pending = failure(get(fake, `${APPS}/deployments`));
  await until(() => fake.requests.length === 1);
  await fake.stop();
  t.ok(await pending, 'an in-flight request fails when the server stops');
  const refused = (await failure(get(fake, `${APPS}/deployments`))) as { cause?: { code?: string } };
  t.equal(refused.cause?.code, 'ECONNREFUSED');
  await fake.start();
  t.equal(fake.url, url);
  t.equal((await get(fake, `${APPS}/namespaces/apps/deployments/web`)).status, 200);
});

t.test('replicaSet builder points at its Deployment', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  const dep = fake.put(web('web'));
  fake.put(replicaSet({ ownerDeployment: dep }));
  const rs = (await get(fake, `${APPS}/namespaces/apps/replicasets`)).body.items[0]!;
  t.match(rs.metadata.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{10}$/);
  t.same(rs.metadata.ownerReferences, [
    { apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'Deployment', name: 'web', uid: dep.metadata.uid },
  ]);
  t.equal(rs.spec.template.metadata.labels['pod-template-hash'], rs.metadata.name.slice(4));
});

t.test('routing kinds: Service, Ingress and HTTPRoute at their real paths, 404 and 403 like the API', async (t) => {
  const fake = await startFakeKube({
    allow: [
      { group: '', resource: 'services', verbs: ['get', 'list'] },
      { group: 'networking.k8s.io', resource: 'ingresses', verbs: ['get'] },
    ],
  });
  t.teardown(() => fake.close());
  fake.put(service({ namespace: 'apps', name: 'web' }));
  fake.put(ingress({ namespace: 'apps', name: 'web', host: 'web.example.com', path: '/', service: 'web', tls: true }));
  fake.put(httpRoute({ namespace: 'apps', name: 'web', host: 'web.example.com', path: '/', service: 'web' }));

  const svc = await get(fake, '/api/v1/namespaces/apps/services/web');
  t.equal(svc.status, 200);
  t.match(svc.body, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'apps' } });
  t.notOk(svc.body.metadata.generation, 'no generation on Services');
  const services = await get(fake, '/api/v1/namespaces/apps/services');
  t.match(services.body, { kind: 'ServiceList', apiVersion: 'v1' });
  t.notOk(services.body.items[0]!.kind, 'typed list items carry no kind');
  const ing = await get(fake, '/apis/networking.k8s.io/v1/namespaces/apps/ingresses/web');
  t.match(ing.body, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { generation: 1 } });
  const missing = await get(fake, '/apis/networking.k8s.io/v1/namespaces/apps/ingresses/gone');
  t.equal(missing.status, 404);
  t.equal(missing.body.message, 'ingresses.networking.k8s.io "gone" not found');

  const route = await get(fake, '/apis/gateway.networking.k8s.io/v1/namespaces/apps/httproutes/web');
  t.equal(route.status, 403);
  t.equal(
    route.body.message,
    'httproutes.gateway.networking.k8s.io "web" is forbidden: User "system:serviceaccount:flux-system:github-deployment-bridge" ' +
      'cannot get resource "httproutes" in API group "gateway.networking.k8s.io" in the namespace "apps"',
  );
  fake.allow = undefined;
  const allowed = await get(fake, '/apis/gateway.networking.k8s.io/v1/namespaces/apps/httproutes');
  t.match(allowed.body, { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRouteList', items: [{ kind: 'HTTPRoute' }] });
});

t.test('openConnections counts the TCP connections open to the server, kept-alive ones included', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  t.equal(fake.openConnections, 0);
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  t.teardown(() => agent.destroy());
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(`${fake.url}${KS}/kustomizations`);
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, agent, headers: { authorization: `Bearer ${fake.token}` } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
  await Promise.all([once(), once()]);
  t.equal(fake.openConnections, 2, 'two kept-alive sockets');
  agent.destroy();
  const deadline = Date.now() + 5000;
  while (fake.openConnections > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  t.equal(fake.openConnections, 0, 'closed by the client');
});
