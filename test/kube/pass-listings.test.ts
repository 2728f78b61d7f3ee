/** The resync pass's listings, through the real client against the fake API: what they answer and what they cost. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKubeReader } from '../../src/kube/kube-client.js';
import { createPassListings } from '../../src/kube/pass-listings.js';
import { podsFor } from '../harness/core-objects.js';
import { startFakeKube, writeKubeconfig } from '../harness/fake-kube.js';
import { deployment, kustomization } from '../harness/flux-objects.js';

const dir = mkdtempSync(join(tmpdir(), 'pass-listings-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const D1 = `sha256:${'a'.repeat(64)}`;

async function setup(t: { teardown(fn: () => unknown): void }, opts: Parameters<typeof startFakeKube>[0] = {}) {
  const fake = await startFakeKube({ token: 'listings-token', ...opts });
  t.teardown(() => fake.close());
  const base = createKubeReader({ kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'cfg-')), fake.url, fake.token), timeoutMs: 5000 });
  let clock = 1_000;
  const listings = createPassListings(base, { now: () => clock, maxAgeMs: 30_000 });
  const requests = () => fake.requests.splice(0).map((r) => `${r.method} ${r.path}`);
  return {
    fake,
    base,
    listings,
    reader: listings.reader,
    requests,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

t.test('workloads: one list per (kind, namespace) answers every name, missing ones as null', async (t) => {
  const { fake, reader, requests } = await setup(t);
  for (const n of ['a', 'b', 'c'])
    fake.put(deployment({ namespace: 'apps', name: n, containers: [{ name: 'app', image: `ghcr.io/acme/${n}:1` }] }));
  fake.put(deployment({ namespace: 'web', name: 'front', containers: [{ name: 'app', image: 'ghcr.io/acme/front:1' }] }));
  const got = await Promise.all([
    reader.getWorkload('Deployment', 'apps', 'a'),
    reader.getWorkload('Deployment', 'apps', 'b'),
    reader.getWorkload('Deployment', 'apps', 'c'),
    reader.getWorkload('Deployment', 'web', 'front'),
    reader.getWorkload('Deployment', 'apps', 'gone'),
  ]);
  t.same(
    got.map((o) => o?.metadata.name ?? null),
    ['a', 'b', 'c', 'front', null],
  );
  t.same(got[0]?.spec?.template, fake.get('apps/v1', 'Deployment', 'apps', 'a')?.spec?.template, 'the object as the API serves it');
  t.same(requests().sort(), ['GET /apis/apps/v1/namespaces/apps/deployments', 'GET /apis/apps/v1/namespaces/web/deployments']);
});

t.test('pods: one list per namespace, filtered locally exactly as the API server filters', async (t) => {
  const { fake, base, reader, requests } = await setup(t);
  const web = fake.put(deployment({ namespace: 'apps', name: 'web', containers: [{ name: 'app', image: 'ghcr.io/acme/web:1' }] }));
  const api = fake.put(deployment({ namespace: 'apps', name: 'api', containers: [{ name: 'app', image: 'ghcr.io/acme/api:1' }] }));
  for (const p of podsFor(web, { count: 2, imageIDs: { app: `ghcr.io/acme/web@${D1}` } })) fake.put(p);
  for (const p of podsFor(api, { count: 3, imageIDs: { app: `ghcr.io/acme/api@${D1}` } })) fake.put(p);
  const names = (pods: Array<{ name: string }>) => pods.map((p) => p.name).sort();
  for (const w of [web, api]) {
    const selector = w.spec?.selector as { matchLabels: Record<string, string> };
    const local = await reader.listPods('apps', selector);
    t.equal(local.length, w === web ? 2 : 3);
    t.same(names(local), names(await base.listPods('apps', selector)), `${w.metadata.name}: same pods as the server's selection`);
  }
  t.same(
    requests().filter((r) => r.endsWith('/pods')),
    Array(3).fill('GET /api/v1/namespaces/apps/pods'),
    'one namespace list, then the two comparison lists',
  );
  t.same(await reader.listPods('apps', {}), [], 'an empty selector selects nothing');
});

t.test('Flux objects: the pass list answers for the namespaces it covered, a GET for the others', async (t) => {
  const { fake, reader, requests } = await setup(t);
  fake.put(kustomization({ namespace: 'flux-system', name: 'apps', inventory: [] }));
  fake.put(kustomization({ namespace: 'team', name: 'web', inventory: [] }));
  t.equal((await reader.listFluxObjects('Kustomization', ['flux-system'])).length, 1);
  requests();
  t.equal((await reader.getFluxObject({ kind: 'Kustomization', namespace: 'flux-system', name: 'apps' }))?.metadata.name, 'apps');
  t.equal(await reader.getFluxObject({ kind: 'Kustomization', namespace: 'flux-system', name: 'deleted' }), null, 'not listed: gone');
  t.same(requests(), [], 'no request for a listed namespace');
  t.equal((await reader.getFluxObject({ kind: 'Kustomization', namespace: 'team', name: 'web' }))?.metadata.name, 'web');
  t.equal(await reader.getFluxObject({ kind: 'HelmRelease', namespace: 'flux-system', name: 'x' }), null);
  t.same(
    requests(),
    [
      'GET /apis/kustomize.toolkit.fluxcd.io/v1/namespaces/team/kustomizations/web',
      'GET /apis/helm.toolkit.fluxcd.io/v2/namespaces/flux-system/helmreleases/x',
    ],
    'outside the list: read by name',
  );
});

t.test('freshness: a listing is read again after its age or when a new pass begins', async (t) => {
  const { fake, listings, reader, requests, advance } = await setup(t);
  fake.put(deployment({ namespace: 'apps', name: 'a', containers: [{ name: 'app', image: 'ghcr.io/acme/a:1' }] }));
  await reader.getWorkload('Deployment', 'apps', 'a');
  advance(30_000);
  await reader.getWorkload('Deployment', 'apps', 'a');
  t.equal(requests().length, 1, 'still fresh at 30 s');
  advance(1);
  fake.put(deployment({ namespace: 'apps', name: 'b', containers: [{ name: 'app', image: 'ghcr.io/acme/b:1' }] }));
  t.equal((await reader.getWorkload('Deployment', 'apps', 'b'))?.metadata.name, 'b', 'stale listing read again');
  listings.begin();
  await reader.getWorkload('Deployment', 'apps', 'a');
  t.equal(requests().length, 2);
});

t.test('failures: a failed list is not kept; a list RBAC refuses falls back to reads by name', async (t) => {
  const { fake, reader, requests } = await setup(t, {
    allow: [
      { group: 'apps', resource: 'deployments', verbs: ['get'] },
      { group: 'apps', resource: 'statefulsets', verbs: ['get', 'list'] },
    ],
  });
  fake.put(deployment({ namespace: 'apps', name: 'a', containers: [{ name: 'app', image: 'ghcr.io/acme/a:1' }] }));
  t.equal((await reader.getWorkload('Deployment', 'apps', 'a'))?.metadata.name, 'a');
  t.equal(await reader.getWorkload('Deployment', 'apps', 'zz'), null);
  t.same(
    requests(),
    [
      'GET /apis/apps/v1/namespaces/apps/deployments', // 403: list not allowed
      'GET /apis/apps/v1/namespaces/apps/deployments/a',
      'GET /apis/apps/v1/namespaces/apps/deployments/zz',
    ],
    'the refused list is not asked again in this pass',
  );
  fake.inject({ path: '/apis/apps/v1/namespaces/apps/statefulsets', status: 503 });
  await t.rejects(reader.getWorkload('StatefulSet', 'apps', 's'), /503/);
  t.equal(await reader.getWorkload('StatefulSet', 'apps', 's'), null, 'the next read lists again');
  t.equal(requests().length, 2);
});

t.test('no listing answers for longer than the resync interval, even below LISTING_MAX_AGE_MS', async (t) => {
  const fake = await startFakeKube({ token: 'listings-token' });
  t.teardown(() => fake.close());
  const base = createKubeReader({ kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'cfg-')), fake.url, fake.token), timeoutMs: 5000 });
  let clock = 1_000;
  const { reader } = createPassListings(base, { now: () => clock, passIntervalMs: 2_000 });
  fake.put(deployment({ namespace: 'apps', name: 'web', containers: [{ name: 'app', image: 'ghcr.io/acme/web:1' }] }));
  const lists = () => fake.requests.filter((r) => r.path === '/apis/apps/v1/namespaces/apps/deployments').length;
  await reader.getWorkload('Deployment', 'apps', 'web');
  clock += 2_000;
  await reader.getWorkload('Deployment', 'apps', 'web');
  t.equal(lists(), 1, 'within the interval: the same listing');
  clock += 1;
  await reader.getWorkload('Deployment', 'apps', 'web');
  t.equal(lists(), 2, 'older than the interval: listed again');
});

t.test('a listing is let go once it is too old to answer, not held until the next pass', async (t) => {
  const fake = await startFakeKube({ token: 'listings-token' });
  t.teardown(() => fake.close());
  const base = createKubeReader({ kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'cfg-')), fake.url, fake.token), timeoutMs: 5000 });
  const releases: Array<{ fn: () => void; ms: number }> = [];
  // The clock stands still: only a release can make the listing list again.
  const { reader } = createPassListings(base, { now: () => 1_000, maxAgeMs: 30_000, later: (fn, ms) => releases.push({ fn, ms }) });
  fake.put(deployment({ namespace: 'apps', name: 'a', containers: [{ name: 'app', image: 'ghcr.io/acme/a:1' }] }));
  const lists = () => fake.requests.filter((r) => r.path === '/apis/apps/v1/namespaces/apps/deployments').length;
  t.equal((await reader.getWorkload('Deployment', 'apps', 'a'))?.metadata.name, 'a');
  t.equal((await reader.getWorkload('Deployment', 'apps', 'a'))?.metadata.name, 'a');
  t.equal(lists(), 1, 'answered from the listing while it is kept');
  t.same(
    releases.map((r) => r.ms),
    [30_000],
    'its release is due when it is too old to answer',
  );
  releases[0]!.fn();
  t.equal((await reader.getWorkload('Deployment', 'apps', 'a'))?.metadata.name, 'a');
  t.equal(lists(), 2, 'listed again: the old listing was let go');
  await reader.listFluxObjects('Kustomization', []);
  t.equal(releases.length, 3, 'a Flux listing is released too');
});
