/**
 * Image facts end to end below the reconcile: the real Kubernetes client against the fake API
 * (Secrets, ServiceAccounts, Pods), the real cache on SQLite, the real client, and the real
 * htpasswd docker-registry behind a counting proxy.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { authFileKeyring } from '../../src/images/auth-file.js';
import { createImageFacts, createWarnOnce } from '../../src/images/image-facts.js';
import { createKubeReader } from '../../src/kube/kube-client.js';
import { createCachedLabelSource } from '../../src/oci/cached-label-source.js';
import { createRegistryClient } from '../../src/oci/registry-client.js';
import { ImageCache } from '../../src/store/image-cache.js';
import { podsFor, pullSecret, serviceAccount } from '../harness/core-objects.js';
import { startFakeKube, writeKubeconfig, type AllowRule } from '../harness/fake-kube.js';
import { deployment } from '../harness/flux-objects.js';
import { pushImage } from '../harness/push-image.js';
import { startRegistry } from '../harness/registry.js';
import { startRegistryProxy } from '../oci/registry-proxy.js';
import { openDatabase } from '../harness/database.js';

const dir = mkdtempSync(join(tmpdir(), 'image-facts-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const alice = { username: 'alice', password: 'alice-pw' };
const registry = await startRegistry({ auth: 'htpasswd', users: { alice: alice.password } });
t.teardown(() => registry.close());
const proxy = await startRegistryProxy({ upstream: registry.url });
t.teardown(() => proxy.close());
const host = proxy.host;
const LABELS = { 'org.opencontainers.image.source': 'https://github.com/acme/private', 'org.opencontainers.image.revision': 'c0ffee0' };
const digest = await pushImage(registry.url, 'acme/private', 'v1', { labels: LABELS, auth: alice });
const image = `${host}/acme/private:v1`;
const ALL: AllowRule[] = [{ group: '*', resource: '*', verbs: ['*'] }];
let n = 0;

async function setup(t: { teardown(fn: () => unknown): void }, o: { allow?: AllowRule[]; authFile?: object } = {}) {
  const kube = await startFakeKube({ token: 'facts-token', allow: o.allow ?? ALL });
  t.teardown(() => kube.close());
  const reader = createKubeReader({
    kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'cfg-')), kube.url, kube.token),
    timeoutMs: 5000,
  });
  const db = openDatabase(join(dir, `facts-${n++}.db`));
  t.teardown(() => db.close());
  const labels = createCachedLabelSource(createRegistryClient({ insecureHosts: [host] }), new ImageCache(db));
  const warnings: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _e, cb) {
        warnings.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        cb();
      },
    }),
  );
  const warnOnce = createWarnOnce(log);
  let authFile = () => [] as ReturnType<ReturnType<typeof authFileKeyring>>;
  if (o.authFile) {
    const path = join(dir, `auth-${n}.json`);
    writeFileSync(path, JSON.stringify(o.authFile));
    authFile = authFileKeyring(path, warnOnce);
  }
  const facts = createImageFacts({ kube: reader, labels, authFile, warnOnce });
  const start = proxy.log.length;
  return { kube, facts, warnings, sent: () => proxy.log.slice(start).map((r) => r.method) };
}

const app = { name: 'app', image };
const secretReads = (kube: { requests: Array<{ path: string }> }) =>
  kube.requests.filter((r) => /\/(secrets|serviceaccounts)\//.test(r.path)).map((r) => r.path);

t.test("credentials from the pod template's imagePullSecrets (dockerconfigjson and legacy dockercfg)", async (t) => {
  const { kube, facts, sent } = await setup(t);
  kube.put(pullSecret({ namespace: 'apps', name: 'unrelated', auths: { [host]: alice } }));
  kube.put(pullSecret({ namespace: 'apps', name: 'regcred', auths: { [`http://${host}/v1/`]: alice } }));
  kube.put(pullSecret({ namespace: 'apps', name: 'legacy', legacy: true, auths: { [host]: alice } }));
  const dep = kube.put(deployment({ namespace: 'apps', name: 'web', containers: [app], imagePullSecrets: ['regcred'] }));
  t.strictSame(await facts.forWorkload(dep).facts(app, true), { labels: LABELS, digest });
  t.strictSame(
    secretReads(kube),
    ['/api/v1/namespaces/apps/secrets/regcred'],
    'only the named Secret is read; no service account when the template names secrets',
  );
  t.strictSame(sent(), ['HEAD', 'HEAD', 'GET', 'GET'], 'challenge, HEAD, manifest, config');

  const legacy = kube.put(
    deployment({
      namespace: 'apps',
      name: 'old',
      containers: [{ name: 'app', image: `${host}/acme/private@${digest}` }],
      imagePullSecrets: ['legacy'],
    }),
  );
  t.strictSame(
    (await facts.forWorkload(legacy).facts({ name: 'app', image: `${host}/acme/private@${digest}` }, true))?.labels,
    LABELS,
    'cached digest: no registry call',
  );
  t.strictSame(secretReads(kube).length, 1, 'and no Secret read either: credentials are looked up only when the registry is asked');
});

t.test("credentials from the service account's imagePullSecrets", async (t) => {
  const { kube, facts } = await setup(t);
  kube.put(pullSecret({ namespace: 'apps', name: 'sa-cred', auths: { [host]: alice } }));
  kube.put(serviceAccount({ namespace: 'apps', name: 'builder', imagePullSecrets: ['missing', 'sa-cred'] }));
  const dep = kube.put(deployment({ namespace: 'apps', name: 'web', containers: [app], serviceAccountName: 'builder' }));
  t.strictSame((await facts.forWorkload(dep).facts(app, true))?.labels, LABELS);
  t.strictSame(secretReads(kube), [
    '/api/v1/namespaces/apps/serviceaccounts/builder',
    '/api/v1/namespaces/apps/secrets/missing',
    '/api/v1/namespaces/apps/secrets/sa-cred',
  ]);
});

t.test('no RBAC for Secrets: REGISTRY_AUTH_FILE, with one warning', async (t) => {
  const noSecrets: AllowRule[] = [
    { group: '', resource: 'pods', verbs: ['list'] },
    { group: '', resource: 'serviceaccounts', verbs: ['get'] },
  ];
  const { kube, facts, warnings } = await setup(t, {
    allow: noSecrets,
    authFile: { auths: { [host]: { auth: Buffer.from('alice:alice-pw').toString('base64') } } },
  });
  for (const name of ['web', 'api']) {
    const dep = kube.put(
      deployment({
        namespace: 'apps',
        name,
        containers: [{ name: 'app', image: `${host}/acme/private:v1` }],
        imagePullSecrets: ['regcred'],
      }),
    );
    t.strictSame((await facts.forWorkload(dep).facts(app, true))?.labels, LABELS, `${name} reported`);
  }
  t.equal(warnings.length, 1, 'one log line, not one per workload');
  t.match(warnings[0], {
    namespace: 'apps',
    msg: /cannot read Secrets \(RBAC: get secrets\).*fall back to REGISTRY_AUTH_FILE and anonymous/,
  });
});

t.test('no credentials anywhere: an actionable denied', async (t) => {
  const { kube, facts } = await setup(t, { authFile: { auths: { 'ghcr.io': { username: 'x', password: 'y' } } } });
  const dep = kube.put(deployment({ namespace: 'apps', name: 'web', containers: [app] }));
  await t.rejects(facts.forWorkload(dep).facts(app, true), {
    name: 'RegistryError',
    failure: 'denied',
    message: `${host} denied pull of acme/private: add an imagePullSecret or REGISTRY_AUTH_FILE`,
  });
  t.strictSame(secretReads(kube), ['/api/v1/namespaces/apps/serviceaccounts/default'], 'the default service account is consulted');
});

t.test('the running digest: from the pods, labels read by that digest; annotations alone need no registry', async (t) => {
  const { kube, facts, sent } = await setup(t);
  kube.put(pullSecret({ namespace: 'apps', name: 'regcred', auths: { [host]: alice } }));
  const dep = kube.put(deployment({ namespace: 'apps', name: 'web', containers: [app], imagePullSecrets: ['regcred'] }));
  for (const p of podsFor(dep, { count: 2, imageIDs: { app: `docker-pullable://${host}/acme/private@${digest}` } })) kube.put(p);
  const images = facts.forWorkload(dep);
  t.strictSame(await images.facts(app, false), { labels: {}, digest }, 'annotation-only: the digest from the pods');
  t.strictSame(sent(), [], 'without any registry request');
  t.strictSame(await images.facts(app, true), { labels: LABELS, digest });
  t.notOk(sent().includes('HEAD'), 'no tag resolution: the running digest is read directly');
  t.equal(kube.requests.filter((r) => r.path === '/api/v1/namespaces/apps/pods').length, 1, 'pods listed once per workload');

  const other = kube.put(deployment({ namespace: 'apps', name: 'other', containers: [{ name: 'app', image: 'ghcr.io/acme/other:1' }] }));
  t.equal(
    await facts.forWorkload(other).facts({ name: 'app', image: 'ghcr.io/acme/other:1' }, false),
    undefined,
    'no pods, no labels needed: nothing',
  );
});
