import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KubeError, isRetryable } from '../../src/common/errors.js';
import { SERVICE_ACCOUNT_TOKEN_PATH, createKubeReader, loadKubeConfig, missingDefaultKubeconfig } from '../../src/kube/kube-client.js';
import { startFakeKube, writeKubeconfig } from '../harness/fake-kube.js';
import { daemonSet, deployment, helmRelease, kustomization, replicaSet, statefulSet } from '../harness/flux-objects.js';

const KS = '/apis/kustomize.toolkit.fluxcd.io/v1';
const HR = '/apis/helm.toolkit.fluxcd.io/v2';
const dir = mkdtempSync(join(tmpdir(), 'kube-client-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function setup(t: { teardown(fn: () => unknown): void }, opts: Parameters<typeof startFakeKube>[0] = {}, timeoutMs = 5000) {
  const fake = await startFakeKube({ token: 'bridge-token-123', ...opts });
  t.teardown(() => fake.close());
  const sub = mkdtempSync(join(dir, 'cfg-'));
  const reader = createKubeReader({ kubeconfigPath: writeKubeconfig(sub, fake.url, fake.token), timeoutMs });
  return { fake, reader, sub };
}

async function kubeFailure(p: Promise<unknown>): Promise<KubeError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof KubeError) return err;
    throw new Error(`expected a KubeError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected a failure');
}

const containers = [{ name: 'app', image: 'ghcr.io/acme/web:1.2.3' }];
const inventory = [{ namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' }];

t.test('reads Flux objects and workloads through the real client', async (t) => {
  const { fake, reader } = await setup(t);
  fake.put(kustomization({ name: 'apps', inventory }));
  fake.put(helmRelease({ namespace: 'apps', name: 'podinfo', inventory }));
  const dep = fake.put(deployment({ namespace: 'apps', name: 'web', containers }));
  fake.put(replicaSet({ ownerDeployment: dep }));
  fake.put(statefulSet({ namespace: 'apps', name: 'db', containers }));
  fake.put(daemonSet({ namespace: 'apps', name: 'agent', containers }));

  const ks = await reader.getFluxObject({ kind: 'Kustomization', namespace: 'flux-system', name: 'apps' });
  t.equal(ks?.kind, 'Kustomization');
  t.same((ks?.status?.inventory as { entries: unknown }).entries, [{ id: 'apps_web_apps_Deployment', v: 'v1' }]);
  const hr = await reader.getFluxObject({ kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' });
  t.equal(hr?.apiVersion, 'helm.toolkit.fluxcd.io/v2');
  t.equal((await reader.getWorkload('Deployment', 'apps', 'web'))?.metadata.uid, dep.metadata.uid);
  t.equal((await reader.getWorkload('StatefulSet', 'apps', 'db'))?.kind, 'StatefulSet');
  t.equal((await reader.getWorkload('DaemonSet', 'apps', 'agent'))?.kind, 'DaemonSet');
  const rs = await reader.getWorkload('ReplicaSet', 'apps', replicaSet({ ownerDeployment: dep }).metadata.name);
  t.equal(rs?.metadata.ownerReferences?.[0]?.name, 'web');
  t.same(fake.requests.map((r) => r.path).slice(0, 3), [
    `${KS}/namespaces/flux-system/kustomizations/apps`,
    `${HR}/namespaces/apps/helmreleases/podinfo`,
    '/apis/apps/v1/namespaces/apps/deployments/web',
  ]);
  t.same(fake.writes(), [], 'the adapter never writes');
});

t.test('404 is null, for Flux objects and workloads', async (t) => {
  const { fake, reader } = await setup(t);
  t.equal(await reader.getFluxObject({ kind: 'HelmRelease', namespace: 'apps', name: 'gone' }), null);
  t.equal(await reader.getWorkload('Deployment', 'apps', 'gone'), null);
  t.same(
    fake.requests.map((r) => r.status),
    [404, 404],
  );
});

t.test('lists: cluster-wide when no namespaces, one call per namespace otherwise', async (t) => {
  const { fake, reader } = await setup(t);
  fake.put(kustomization({ namespace: 'a', name: 'one' }));
  fake.put(kustomization({ namespace: 'b', name: 'two' }));
  fake.put(kustomization({ namespace: 'c', name: 'three' }));
  const all = await reader.listFluxObjects('Kustomization', []);
  t.same(
    all.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
    ['a/one', 'b/two', 'c/three'],
  );
  t.ok(all.every((o) => o.kind === 'Kustomization' && o.apiVersion === 'kustomize.toolkit.fluxcd.io/v1'));
  t.same(
    fake.requests.map((r) => r.path),
    [`${KS}/kustomizations`],
  );

  fake.requests.length = 0;
  const some = await reader.listFluxObjects('Kustomization', ['c', 'a', 'c']);
  t.same(
    some.map((o) => o.metadata.name),
    ['three', 'one'],
  );
  t.same(
    fake.requests.map((r) => r.path),
    [`${KS}/namespaces/c/kustomizations`, `${KS}/namespaces/a/kustomizations`],
  );
  t.same(await reader.listFluxObjects('HelmRelease', ['a']), []);
});

t.test('lists follow continue tokens', async (t) => {
  const { fake, reader } = await setup(t);
  for (let i = 0; i < 503; i++) fake.put(helmRelease({ namespace: 'apps', name: `hr-${String(i).padStart(3, '0')}` }));
  const all = await reader.listFluxObjects('HelmRelease', ['apps']);
  t.equal(all.length, 503);
  t.equal(new Set(all.map((o) => o.metadata.name)).size, 503);
  t.equal(fake.requests.length, 2);
  t.equal(fake.requests[0]?.query.limit, '500');
  t.ok(fake.requests[1]?.query.continue, 'second page asked with the continue token');
});

t.test('server errors become retryable KubeErrors with a readable message', async (t) => {
  const { fake, reader } = await setup(t);
  fake.inject({ status: 500 });
  const e500 = await kubeFailure(reader.getFluxObject({ kind: 'Kustomization', namespace: 'flux-system', name: 'app' }));
  t.equal(e500.status, 500);
  t.equal(e500.message, 'Kubernetes API: GET kustomizations flux-system/app failed: 500 Internal error occurred: injected fault');
  t.equal(isRetryable(e500), true);

  fake.inject({ status: 503 });
  const e503 = await kubeFailure(reader.listFluxObjects('HelmRelease', []));
  t.equal(e503.status, 503);
  t.match(e503.message, /^Kubernetes API: LIST helmreleases \(all namespaces\) failed: 503 /);
  t.equal(isRetryable(e503), true);

  fake.inject({ status: 429 });
  const e429 = await kubeFailure(reader.getWorkload('Deployment', 'apps', 'web'));
  t.equal(e429.status, 429);
  t.equal(isRetryable(e429), true);

  fake.inject({ reset: true });
  const reset = await kubeFailure(reader.getWorkload('Deployment', 'apps', 'web'));
  t.equal(reset.status, undefined);
  t.equal(isRetryable(reset), true);
  t.equal(await reader.getWorkload('Deployment', 'apps', 'web'), null, 'works again once the faults are used up');
});

t.test('401 and 403 are not retryable, and no token leaks into messages', async (t) => {
  const { fake } = await setup(t, {
    allow: [{ group: 'kustomize.toolkit.fluxcd.io', resource: 'kustomizations', verbs: ['get', 'list'] }],
  });
  const badCfg = writeKubeconfig(mkdtempSync(join(dir, 'bad-')), fake.url, 'not-the-token-xyz');
  const wrong = createKubeReader({ kubeconfigPath: badCfg, timeoutMs: 5000 });
  const e401 = await kubeFailure(wrong.getFluxObject({ kind: 'Kustomization', namespace: 'flux-system', name: 'app' }));
  t.equal(e401.status, 401);
  t.equal(isRetryable(e401), false);
  t.notMatch(e401.message, /not-the-token-xyz|bridge-token-123/);
  t.equal(e401.message, 'Kubernetes API: GET kustomizations flux-system/app failed: 401 Unauthorized');

  const right = createKubeReader({ kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'ok-')), fake.url, fake.token) });
  t.equal(await right.getFluxObject({ kind: 'Kustomization', namespace: 'flux-system', name: 'app' }), null);
  const e403 = await kubeFailure(right.getWorkload('Deployment', 'apps', 'web'));
  t.equal(e403.status, 403);
  t.equal(isRetryable(e403), false);
  t.match(
    e403.message,
    /^Kubernetes API: GET deployments apps\/web failed: 403 deployments\.apps "web" is forbidden: User ".*" cannot get resource "deployments" in API group "apps" in the namespace "apps"$/,
  );
  t.notMatch(e403.message, /bridge-token-123/);
});

t.test('a hanging API server times out; a stopped one is connection refused', async (t) => {
  const { fake, reader } = await setup(t, {}, 150);
  fake.inject({ hang: true });
  const hung = await kubeFailure(reader.getFluxObject({ kind: 'HelmRelease', namespace: 'apps', name: 'x' }));
  t.equal(hung.status, undefined);
  t.equal(hung.message, 'Kubernetes API: GET helmreleases apps/x timed out after 150 ms');
  t.equal(isRetryable(hung), true);

  await fake.stop();
  const refused = await kubeFailure(reader.listFluxObjects('Kustomization', ['flux-system']));
  t.equal(refused.status, undefined);
  t.match(refused.message, /^Kubernetes API: LIST kustomizations in flux-system failed: .*ECONNREFUSED/);
  t.equal(isRetryable(refused), true);
  await fake.start();
  t.same(await reader.listFluxObjects('Kustomization', ['flux-system']), [], 'back once the server is');
});

t.test('loadKubeConfig refuses unusable configs up front', (t) => {
  t.throws(() => loadKubeConfig({ kubeconfigPath: join(dir, 'missing') }), /cannot load kubeconfig/);
  const plain = join(dir, 'plain-http');
  writeFileSync(
    plain,
    'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1\n' +
      'users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n',
  );
  t.throws(() => loadKubeConfig({ kubeconfigPath: plain }), /plain http, which needs insecure-skip-tls-verify/);
  t.throws(() => createKubeReader({ kubeconfigPath: plain, timeoutMs: 0 }), /timeout must be positive/);
  const ok = loadKubeConfig({ kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'l-')), 'http://127.0.0.1:9', 'tok') });
  t.equal(ok.getCurrentCluster()?.server, 'http://127.0.0.1:9');
  t.equal(ok.getCurrentUser()?.token, 'tok');
  t.end();
});

t.test('missingDefaultKubeconfig: one clear line when neither a kubeconfig nor a cluster is found', (t) => {
  const home = '/home/op';
  const homeConfig = '/home/op/.kube/config';
  const none = 'no kubeconfig found at /home/op/.kube/config and not running in a cluster';
  const rows: Array<[string, NodeJS.ProcessEnv, string[], string | undefined]> = [
    ['KUBECONFIG set: left to the loader', { KUBECONFIG: '/etc/kube.yaml', HOME: home }, [], undefined],
    ['~/.kube/config exists', { HOME: home }, [homeConfig], undefined],
    ['in a pod', { HOME: home, KUBERNETES_SERVICE_HOST: '10.0.0.1' }, [SERVICE_ACCOUNT_TOKEN_PATH], undefined],
    ['nothing at all', { HOME: home }, [], `${none} (KUBERNETES_SERVICE_HOST unset): set KUBECONFIG or run in a cluster`],
    [
      'a token but no service host',
      { HOME: home },
      [SERVICE_ACCOUNT_TOKEN_PATH],
      `${none} (KUBERNETES_SERVICE_HOST unset): set KUBECONFIG or run in a cluster`,
    ],
    [
      'a service host but no token',
      { HOME: home, KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      [],
      `${none} (no service account token at ${SERVICE_ACCOUNT_TOKEN_PATH}): set KUBECONFIG or run in a cluster`,
    ],
    [
      'HOME unset',
      { KUBECONFIG: '' },
      [homeConfig],
      'no kubeconfig found at ~/.kube/config (HOME unset) and not running in a cluster (KUBERNETES_SERVICE_HOST unset): set KUBECONFIG or run in a cluster',
    ],
  ];
  for (const [name, env, files, want] of rows) {
    t.equal(
      missingDefaultKubeconfig(env, (p) => files.includes(p)),
      want,
      name,
    );
  }
  t.end();
});
