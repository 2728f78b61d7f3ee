/** The watch transport against the fake API server, through a real kubeconfig: lists, watches and how they end. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KubeError } from '../../src/common/errors.js';
import { loadKubeConfig } from '../../src/kube/kube-client.js';
import { createWatchTransport, type WatchEvent } from '../../src/kube/watch-stream.js';
import { startFakeKube, writeKubeconfig } from '../harness/fake-kube.js';
import { deployment } from '../harness/flux-objects.js';

const DEPLOYMENTS = '/apis/apps/v1/namespaces/apps/deployments';
const dir = mkdtempSync(join(tmpdir(), 'watch-stream-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function setup(t: { teardown(fn: () => unknown): void }) {
  const fake = await startFakeKube({ token: 'watch-token' });
  t.teardown(() => fake.close());
  const kc = loadKubeConfig({ kubeconfigPath: writeKubeconfig(mkdtempSync(join(dir, 'cfg-')), fake.url, fake.token) });
  return { fake, transport: createWatchTransport(kc) };
}

const web = (name: string) => deployment({ namespace: 'apps', name, containers: [{ name: 'app', image: `ghcr.io/acme/${name}:1` }] });
const names = (events: WatchEvent[]) => events.map((e) => `${e.type} ${e.object.metadata.name}`);

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!cond()) throw new Error('condition never held');
}

t.test('list: every page, with the first page’s resourceVersion, credentials from the kubeconfig', async (t) => {
  const { fake, transport } = await setup(t);
  for (let i = 0; i < 501; i++) fake.put(web(`w-${String(i).padStart(3, '0')}`));
  const version = fake.get('apps/v1', 'Deployment', 'apps', 'w-500')!.metadata.resourceVersion;
  const listing = await transport.list(DEPLOYMENTS, 5_000);
  t.equal(listing.items.length, 501);
  t.equal(listing.items[500]!.metadata.name, 'w-500');
  t.equal(listing.resourceVersion, version, 'the version to watch from');
  t.same(
    fake.requests.map((r) => [r.query.limit, r.query.continue === undefined]),
    [
      ['500', true],
      ['500', false],
    ],
    'two pages',
  );
  fake.allow = [];
  const refused = await transport.list(DEPLOYMENTS, 5_000).catch((e: unknown) => e);
  t.ok(refused instanceof KubeError);
  t.equal((refused as KubeError).status, 403);
  t.match(
    (refused as KubeError).message,
    /^Kubernetes API: LIST \/apis\/apps\/v1\/namespaces\/apps\/deployments failed: 403 .*cannot list/,
  );
  fake.allow = undefined;
  fake.inject({ hang: true });
  const timedOut = await transport.list(DEPLOYMENTS, 100).catch((e: unknown) => e);
  t.match((timedOut as KubeError).message, /timed out after 100 ms/);
});

t.test('watch: events as they happen, bookmarks included; close() ends it as closed', async (t) => {
  const { fake, transport } = await setup(t);
  const from = fake.put(web('a')).metadata.resourceVersion!;
  const events: WatchEvent[] = [];
  const w = transport.watch(DEPLOYMENTS, { resourceVersion: from }, (e) => events.push(e), 5_000);
  await until(() => fake.openWatches === 1);
  fake.put(web('b'));
  fake.delete('apps/v1', 'Deployment', 'apps', 'a');
  await until(() => events.length === 2);
  t.same(names(events), ['ADDED b', 'DELETED a']);
  t.equal(fake.requests.at(-1)!.query.watch, 'true');
  t.equal(fake.requests.at(-1)!.query.resourceVersion, from);
  w.close();
  t.same(await w.ended, { reason: 'closed' });
  await until(() => fake.openWatches === 0);

  const bookmarks: WatchEvent[] = [];
  const timed = transport.watch(
    DEPLOYMENTS,
    { resourceVersion: from, timeoutSeconds: '0', allowWatchBookmarks: 'true' },
    (e) => bookmarks.push(e),
    5_000,
  );
  t.same(await timed.ended, { reason: 'closed' }, 'the server’s timeout is a clean end');
  t.same(
    bookmarks.map((e) => e.type),
    ['ADDED', 'DELETED', 'BOOKMARK'],
  );
});

t.test('watch: how it ends when something goes wrong', async (t) => {
  const { fake, transport } = await setup(t);
  const from = fake.put(web('a')).metadata.resourceVersion!;
  const open = () => transport.watch(DEPLOYMENTS, { resourceVersion: from }, () => undefined, 5_000);

  const expired = open();
  await until(() => fake.openWatches === 1);
  fake.expireWatches();
  t.same(await expired.ended, { reason: 'gone' }, 'ERROR 410 in the stream');

  fake.put(web('b'));
  fake.compact();
  t.same(await open().ended, { reason: 'gone' }, 'a resume from a compacted version');

  const fresh = transport.watch(DEPLOYMENTS, {}, () => undefined, 5_000);
  await until(() => fake.openWatches === 1);
  fake.dropWatches();
  t.match(await fresh.ended, { reason: 'failed', error: { message: /WATCH .* connection dropped/ } });

  fake.allow = [{ group: 'apps', resource: 'deployments', verbs: ['get', 'list'] }];
  t.match(await open().ended, { reason: 'failed', error: { status: 403, message: /failed: 403 .*cannot watch/ } });
  fake.allow = undefined;

  fake.inject({ status: 500 });
  t.match(await open().ended, { reason: 'failed', error: { status: 500 } });
  fake.inject({ reset: true });
  t.match(await open().ended, { reason: 'failed', error: { status: undefined } }, 'connection reset before an answer');
  fake.inject({ hang: true });
  const silent = transport.watch(DEPLOYMENTS, { resourceVersion: from }, () => undefined, 100);
  t.match(await silent.ended, { reason: 'failed', error: { message: /sent nothing for 100 ms/ } }, 'a silent connection is given up');
  const quiet = transport.watch(DEPLOYMENTS, {}, () => undefined, 100);
  t.match(await quiet.ended, { reason: 'failed', error: { message: /sent nothing for 100 ms/ } }, 'also once streaming');
});
