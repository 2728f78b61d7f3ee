/**
 * The real bridge process against real registries: a private image read with the workload's
 * imagePullSecret and reported with the digest its pods run, a denied image as an actionable skip,
 * an outage retried with backoff, and the steady state counted request by request.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { podsFor, pullSecret } from '../harness/core-objects.js';
import { deployment } from '../harness/flux-objects.js';
import { pushImage } from '../harness/push-image.js';
import { startRegistry } from '../harness/registry.js';
import { startWorld, type World } from '../harness/world.js';
import { startRegistryProxy } from '../oci/registry-proxy.js';
import { OPT_IN, READY, idle, putKustomization, sha } from './scenario.js';

const appLabels = (app: string, commit: string) => ({
  'org.opencontainers.image.source': `https://github.com/acme/${app}`,
  'org.opencontainers.image.revision': commit,
});
/** Resync reconciles that read namespace `apps` (each pass reads its workloads with one list call). */
const resyncReads = (world: World) => world.kube.requests.filter((r) => r.path === '/apis/apps/v1/namespaces/apps/deployments').length;

t.test('private image via imagePullSecret, with the digest its pods run; a denied image is an actionable skip', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const alice = { username: 'alice', password: 'alice-pw' };
  const locked = await startRegistry({ auth: 'htpasswd', users: { alice: alice.password } });
  t.teardown(() => locked.close());
  // The tag moved after the pods pulled it: what runs is the older digest, and that is what is reported.
  const running = await pushImage(locked.url, 'acme/private', '1.0.0', { labels: appLabels('private', sha('private-old')), auth: alice });
  await pushImage(locked.url, 'acme/private', '1.0.0', { labels: appLabels('private', sha('private-new')), auth: alice });
  await pushImage(locked.url, 'acme/hidden', '1.0.0', { labels: appLabels('hidden', sha('hidden')), auth: alice });

  world.kube.put(pullSecret({ namespace: 'apps', name: 'regcred', auths: { [locked.host]: alice } }));
  const image = `${locked.host}/acme/private:1.0.0`;
  const dep = world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'private',
      annotations: OPT_IN,
      containers: [{ name: 'app', image }],
      imagePullSecrets: ['regcred'],
    }),
  );
  for (const p of podsFor(dep, { imageIDs: { app: `${locked.host}/acme/private@${running}` } })) world.kube.put(p);
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'hidden',
      annotations: OPT_IN,
      containers: [{ name: 'app', image: `${locked.host}/acme/hidden:1.0.0` }],
    }),
  );
  putKustomization(world, 'apps', ['private', 'hidden'], READY);

  const bridge = await world.bridge({ REGISTRY_INSECURE_HOSTS: locked.host });
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'));
  const state = await bridge.waitFor('reconciled', () => idle(bridge));

  const [reported] = world.github.deployments('acme', 'private');
  t.match(reported, { sha: sha('private-old'), payload: { image, digest: running } }, 'the commit and digest of what runs');
  t.same(world.github.deployments('acme', 'hidden'), []);
  t.match(state.skipped, [
    {
      workload: 'Deployment/apps/hidden',
      container: 'app',
      code: 'registry_denied',
      reason: `${locked.host} denied pull of acme/hidden: add an imagePullSecret or REGISTRY_AUTH_FILE`,
    },
  ]);
  const metrics = await bridge.metrics();
  t.match(metrics, /gdb_skipped_workloads\{reason="registry_denied"\} 1\n/);
  t.match(metrics, /gdb_skips_total\{reason="registry_denied"\} 1\n/, 'counted once, however often the source is reconciled');
  t.match(metrics, /gdb_registry_lookups_total\{outcome="denied"\} [1-9]/);
  t.match(
    metrics,
    /gdb_registry_http_requests_total\{method="HEAD",status="401"\} [1-9]/,
    'registry requests are counted by method and status',
  );
  t.same(world.kube.writes(), [], 'the bridge never writes to the cluster');
  t.same(world.github.violations, []);
});

t.test('a registry outage is a skip that retries with backoff, then reports', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const proxy = await startRegistryProxy({ upstream: world.registry!.url });
  t.teardown(() => proxy.close());
  await pushImage(world.registry!.url, 'acme/web', '1.0.0', { labels: appLabels('web', sha('outage')) });
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations: OPT_IN,
      containers: [{ name: 'app', image: `${proxy.host}/acme/web:1.0.0` }],
    }),
  );
  putKustomization(world, 'web', ['web'], READY);
  proxy.failWith = 503;

  const bridge = await world.bridge({ REGISTRY_INSECURE_HOSTS: proxy.host });
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'));
  const failed = await bridge.waitFor('skip and retry', async () => {
    const s = await bridge.state();
    return s.skipped.length === 1 && s.queue.items.some((i: { attempts: number }) => i.attempts >= 1) && s;
  });
  t.match(failed.skipped[0], { code: 'registry_unavailable', reason: `${proxy.host} answered HTTP 503 for ${proxy.host}/acme/web:1.0.0` });
  t.match(failed.queue.items[0], { name: 'web', lastError: /will be retried: .*answered HTTP 503/ });
  t.same(world.github.deployments('acme', 'web'), []);

  proxy.failWith = undefined;
  await bridge.waitFor(
    'reported after the outage',
    () => world.github.deployments('acme', 'web')[0]?.statuses.some((s) => s.state === 'success'),
    30_000,
  );
  const after = await bridge.waitFor('skip cleared', async () => {
    const s = await idle(bridge);
    return s && s.skipped.length === 0 && s;
  });
  t.same(after.skipped, []);
});

t.test('steady state: resyncs with nothing changed, and a restart, make no registry request', async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const proxy = await startRegistryProxy({ upstream: world.registry!.url });
  t.teardown(() => proxy.close());
  const reg = world.registry!.url;
  const tagged = `${proxy.host}/acme/tagged:1.0.0`;
  await pushImage(reg, 'acme/tagged', '1.0.0', { labels: appLabels('tagged', sha('tagged')) });
  const pinnedDigest = await pushImage(reg, 'acme/pinned', '1.0.0', { labels: appLabels('pinned', sha('pinned')) });
  const runningDigest = await pushImage(reg, 'acme/running', '1.0.0', { labels: appLabels('running', sha('running')) });
  world.kube.put(deployment({ namespace: 'apps', name: 'tagged', annotations: OPT_IN, containers: [{ name: 'app', image: tagged }] }));
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'pinned',
      annotations: OPT_IN,
      containers: [{ name: 'app', image: `${proxy.host}/acme/pinned@${pinnedDigest}` }],
    }),
  );
  const run = world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'running',
      annotations: OPT_IN,
      containers: [{ name: 'app', image: `${proxy.host}/acme/running:1.0.0` }],
    }),
  );
  for (const p of podsFor(run, { count: 2, imageIDs: { app: `${proxy.host}/acme/running@${runningDigest}` } })) world.kube.put(p);
  putKustomization(world, 'apps', ['tagged', 'pinned', 'running'], READY);

  const env = { REGISTRY_INSECURE_HOSTS: proxy.host, RESYNC_INTERVAL: '1s' };
  let bridge = await world.bridge(env);
  await bridge.waitFor('all three reported', () =>
    ['tagged', 'pinned', 'running'].every((a) => world.github.deployments('acme', a)[0]?.statuses.some((s) => s.state === 'success')),
  );
  await bridge.waitFor('first pass done', () => idle(bridge));
  const methods = (from: number) => proxy.log.slice(from).map((r) => `${r.method} ${r.path.replace(/sha256:[0-9a-f]{64}/, 'sha256:…')}`);
  t.strictSame(
    methods(0).sort(),
    [
      'GET /v2/acme/pinned/blobs/sha256:…',
      'GET /v2/acme/pinned/manifests/sha256:…',
      'GET /v2/acme/running/blobs/sha256:…',
      'GET /v2/acme/running/manifests/sha256:…',
      'GET /v2/acme/tagged/blobs/sha256:…',
      'GET /v2/acme/tagged/manifests/sha256:…',
      'HEAD /v2/acme/tagged/manifests/1.0.0',
    ],
    'first pass: one HEAD for the tag nobody runs yet; manifest and config once per digest',
  );
  t.match(world.github.deployments('acme', 'running')[0]!.payload, { digest: runningDigest });

  const afterFirst = proxy.log.length;
  const seen = resyncReads(world);
  await bridge.waitFor('two more resyncs', async () => resyncReads(world) >= seen + 2 && idle(bridge), 30_000);
  t.strictSame(methods(afterFirst), [], 'two resyncs with nothing changed: zero GETs, and zero HEADs within the tag TTL');

  await bridge.kill('SIGTERM');
  bridge = await world.bridge(env);
  const restarted = resyncReads(world);
  await bridge.waitFor('a resync after the restart', async () => resyncReads(world) >= restarted + 1 && idle(bridge), 30_000);
  t.strictSame(methods(afterFirst), [], 'after a restart: still no registry request (the cache is on disk)');
  const metrics = await bridge.metrics();
  t.notMatch(metrics, /gdb_registry_http_requests_total\{/, 'and the bridge counted none');
  t.match(metrics, /gdb_registry_cache_lookups_total\{cache="digest",result="hit"\} [1-9]/, 'cache hits are counted');
  t.match((await bridge.state()).registryCache, { digests: 3, tags: 1 }, '/state shows what the cache holds');
  t.equal(world.github.deployments('acme', 'tagged').length, 1);
});
