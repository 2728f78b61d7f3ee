/** The core/v1 reads (Secrets, ServiceAccounts, Pods) through the real client against the fake API. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KubeError, isRetryable } from '../../src/common/errors.js';
import { createKubeReader } from '../../src/kube/kube-client.js';
import { podsFor, pullSecret, serviceAccount } from '../harness/core-objects.js';
import { startFakeKube, writeKubeconfig } from '../harness/fake-kube.js';
import { deployment } from '../harness/flux-objects.js';
import { namespace } from '../harness/workload-objects.js';

const dir = mkdtempSync(join(tmpdir(), 'core-reads-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const D1 = `sha256:${'a'.repeat(64)}`;

async function setup(t: { teardown(fn: () => unknown): void }, opts: Parameters<typeof startFakeKube>[0] = {}) {
  const fake = await startFakeKube({ token: 'core-token', ...opts });
  t.teardown(() => fake.close());
  const reader = createKubeReader({
    kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'cfg-')), fake.url, fake.token),
    timeoutMs: 5000,
  });
  return { fake, reader };
}

t.test('a Namespace: active, being deleted, or null when gone', async (t) => {
  const { fake, reader } = await setup(t);
  fake.put(namespace('apps'));
  fake.put({ ...namespace('preview-42'), metadata: { ...namespace('preview-42').metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } });
  t.strictSame(await reader.getNamespace('apps'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  t.match(await reader.getNamespace('preview-42'), { metadata: { name: 'preview-42', deletionTimestamp: '2025-01-01T00:00:00.000Z' } });
  t.equal(await reader.getNamespace('absent'), null);
  t.strictSame(
    fake.requests.map((r) => r.path),
    ['/api/v1/namespaces/apps', '/api/v1/namespaces/preview-42', '/api/v1/namespaces/absent'],
  );
});

t.test('Secrets and ServiceAccounts: data as served, null when missing', async (t) => {
  const { fake, reader } = await setup(t);
  fake.put(pullSecret({ namespace: 'apps', name: 'regcred', auths: { 'ghcr.io': { username: 'u', password: 'p' } } }));
  fake.put(serviceAccount({ namespace: 'apps', name: 'builder', imagePullSecrets: ['regcred', 'other'] }));
  fake.put(serviceAccount({ namespace: 'apps', name: 'default' }));

  const secret = await reader.getSecret('apps', 'regcred');
  t.equal(secret?.type, 'kubernetes.io/dockerconfigjson');
  const config: unknown = JSON.parse(Buffer.from(secret!.data['.dockerconfigjson']!, 'base64').toString('utf8'));
  t.match(config, { auths: { 'ghcr.io': { username: 'u', password: 'p' } } });
  t.equal(await reader.getSecret('apps', 'absent'), null);
  t.strictSame(await reader.getServiceAccountPullSecrets('apps', 'builder'), ['regcred', 'other']);
  t.strictSame(await reader.getServiceAccountPullSecrets('apps', 'default'), []);
  t.equal(await reader.getServiceAccountPullSecrets('apps', 'absent'), null);
  t.strictSame(
    fake.requests.map((r) => r.path),
    [
      '/api/v1/namespaces/apps/secrets/regcred',
      '/api/v1/namespaces/apps/secrets/absent',
      '/api/v1/namespaces/apps/serviceaccounts/builder',
      '/api/v1/namespaces/apps/serviceaccounts/default',
      '/api/v1/namespaces/apps/serviceaccounts/absent',
    ],
  );
  t.same(fake.writes(), []);
});

t.test('without RBAC for Secrets: a KubeError 403 that is not retried', async (t) => {
  const { fake, reader } = await setup(t, { allow: [{ group: '', resource: 'pods', verbs: ['list'] }] });
  fake.put(pullSecret({ namespace: 'apps', name: 'regcred', auths: {} }));
  let caught: unknown;
  try {
    await reader.getSecret('apps', 'regcred');
  } catch (err) {
    caught = err;
  }
  t.ok(caught instanceof KubeError);
  t.equal((caught as KubeError).status, 403);
  t.match((caught as KubeError).message, /secrets "regcred" is forbidden/);
  t.notOk(isRetryable(caught));
  t.strictSame(await reader.listPods('apps', { matchLabels: { app: 'x' } }), [], 'pods may still be listed');
});

t.test('Pods by label selector, with their containers and image IDs', async (t) => {
  const { fake, reader } = await setup(t);
  const web = fake.put(deployment({ namespace: 'apps', name: 'web', containers: [{ name: 'app', image: 'ghcr.io/acme/web:1' }] }));
  const api = fake.put(deployment({ namespace: 'apps', name: 'api', containers: [{ name: 'app', image: 'ghcr.io/acme/api:1' }] }));
  const created = new Date('2025-03-01T10:00:00Z');
  for (const p of podsFor(web, { count: 2, imageIDs: { app: `ghcr.io/acme/web@${D1}` }, createdAt: created })) fake.put(p);
  for (const p of podsFor(web, { imageIDs: { app: '' }, suffix: 'x', terminating: true })) fake.put(p);
  for (const p of podsFor(api, { imageIDs: { app: `ghcr.io/acme/api@${D1}` } })) fake.put(p);

  const pods = await reader.listPods('apps', { matchLabels: { 'app.kubernetes.io/name': 'web' } });
  t.equal(pods.length, 3, "only the selected workload's pods");
  t.match(pods[0], {
    createdAt: created.getTime(),
    terminating: false,
    labels: { 'app.kubernetes.io/name': 'web' },
    containers: [{ name: 'app', image: 'ghcr.io/acme/web:1' }],
    containerStatuses: [{ name: 'app', imageID: `ghcr.io/acme/web@${D1}` }],
  });
  t.match(pods[2], { terminating: true, containerStatuses: [{ name: 'app', imageID: '' }] });
  const list = fake.requests.find((r) => r.path === '/api/v1/namespaces/apps/pods');
  t.equal(list?.query.labelSelector, 'app.kubernetes.io/name=web');
  t.equal(list?.query.limit, '500');
  t.equal((await reader.listPods('apps', undefined)).length, 4, 'no selector: every pod of the namespace');
  t.strictSame(await reader.listPods('apps', {}), [], 'an empty selector selects nothing (not every pod)');
});
