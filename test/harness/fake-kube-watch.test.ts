/** The fake API server's watches, read raw over HTTP: what kube-apiserver sends, line by line. */
import t from 'tap';
import { startFakeKube, type FakeKube } from './fake-kube.js';
import { deployment } from './flux-objects.js';

const DEPLOYMENTS = '/apis/apps/v1/namespaces/apps/deployments';

interface Line {
  type: string;
  object: { kind?: string; metadata: { name?: string; resourceVersion?: string }; code?: number; reason?: string; message?: string };
}

/** Opens a watch; `lines` fills as they arrive; `ended` says whether the stream ended cleanly or was cut. */
async function watch(fake: FakeKube, path: string, query: Record<string, string> = {}) {
  const url = `${fake.url}${path}?${new URLSearchParams({ watch: 'true', ...query }).toString()}`;
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${fake.token}` }, signal: abort.signal });
  const lines: Line[] = [];
  const ended = (async () => {
    if (res.status !== 200) return { status: res.status, body: (await res.json()) as Line['object'] };
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body!) {
        buf += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          lines.push(JSON.parse(buf.slice(0, nl)) as Line);
          buf = buf.slice(nl + 1);
        }
      }
      return { status: 200, clean: true };
    } catch {
      return { status: 200, clean: false };
    }
  })();
  return { res, lines, ended, close: () => abort.abort() };
}

/** Waits (bounded) until the condition holds; for ordering, not timing. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!cond()) throw new Error('condition never held');
}

const web = (name: string, labels: Record<string, string> = {}) =>
  deployment({ namespace: 'apps', name, labels, containers: [{ name: 'app', image: `ghcr.io/acme/${name}:1.0.0` }] });
const summary = (lines: Line[]) => lines.map((l) => `${l.type} ${l.object.metadata.name ?? ''}`);

t.test('without a resourceVersion: every object as ADDED, then each change as it happens', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('a'));
  fake.put(web('b'));
  fake.put(deployment({ namespace: 'other', name: 'c', containers: [{ name: 'app', image: 'x:1' }] }));
  const w = await watch(fake, DEPLOYMENTS);
  t.teardown(w.close);
  t.equal(w.res.status, 200);
  t.equal(w.res.headers.get('content-type'), 'application/json');
  await until(() => w.lines.length === 2);
  t.equal(fake.openWatches, 1);

  const a = fake.get('apps/v1', 'Deployment', 'apps', 'a')!;
  fake.patchStatus('apps/v1', 'Deployment', 'apps', 'a', { readyReplicas: 0 });
  fake.put(web('d'));
  fake.delete('apps/v1', 'Deployment', 'apps', 'b');
  fake.put(deployment({ namespace: 'other', name: 'e', containers: [{ name: 'app', image: 'x:1' }] }));
  await until(() => w.lines.length === 5);
  t.same(summary(w.lines), ['ADDED a', 'ADDED b', 'MODIFIED a', 'ADDED d', 'DELETED b'], 'only this namespace');
  t.equal(w.lines[2]!.object.kind, 'Deployment', 'watch events carry kind, unlike typed list items');
  t.ok(Number(w.lines[2]!.object.metadata.resourceVersion) > Number(a.metadata.resourceVersion), 'each change has a newer version');
  t.equal(
    Number(w.lines[4]!.object.metadata.resourceVersion),
    Number(w.lines[3]!.object.metadata.resourceVersion) + 1,
    'a deletion has a version of its own',
  );
});

t.test('from a resourceVersion: the changes after it, then live ones; field and label selectors filter', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  const a = fake.put(web('a', { tier: 'front' }));
  fake.put(web('b', { tier: 'back' }));
  fake.patchStatus('apps/v1', 'Deployment', 'apps', 'a', { readyReplicas: 0 });
  const from = a.metadata.resourceVersion!;
  const all = await watch(fake, DEPLOYMENTS, { resourceVersion: from });
  const named = await watch(fake, DEPLOYMENTS, { resourceVersion: from, fieldSelector: 'metadata.name=a' });
  const labelled = await watch(fake, DEPLOYMENTS, { resourceVersion: from, labelSelector: 'tier=back' });
  t.teardown(() => [all, named, labelled].forEach((w) => w.close()));
  await until(() => all.lines.length === 2 && named.lines.length === 1 && labelled.lines.length === 1);
  t.same(summary(all.lines), ['ADDED b', 'MODIFIED a'], 'what happened after the version, not before');
  fake.patchStatus('apps/v1', 'Deployment', 'apps', 'b', { readyReplicas: 0 });
  await until(() => all.lines.length === 3 && labelled.lines.length === 2);
  t.same(summary(named.lines), ['MODIFIED a']);
  t.same(summary(labelled.lines), ['ADDED b', 'MODIFIED b']);
});

t.test('a version older than the history kept: an ERROR event with a 410 Expired Status, then the end', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  const a = fake.put(web('a'));
  fake.put(web('b'));
  fake.compact();
  const w = await watch(fake, DEPLOYMENTS, { resourceVersion: a.metadata.resourceVersion! });
  t.equal(w.res.status, 200, 'the server answers 200 and reports the error in the stream');
  t.same(await w.ended, { status: 200, clean: true });
  t.match(w.lines, [
    { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: /^too old resource version: \d+ \(\d+\)$/ } },
  ]);
  const current = await watch(fake, DEPLOYMENTS, {
    resourceVersion: fake.get('apps/v1', 'Deployment', 'apps', 'b')!.metadata.resourceVersion!,
  });
  t.teardown(current.close);
  fake.put(web('c'));
  await until(() => current.lines.length === 1);
  t.same(summary(current.lines), ['ADDED c'], 'the current version is still good after compaction');
});

t.test('timeoutSeconds ends the stream cleanly, after a BOOKMARK when bookmarks are allowed', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  fake.put(web('a'));
  const w = await watch(fake, DEPLOYMENTS, { resourceVersion: '1000', timeoutSeconds: '0', allowWatchBookmarks: 'true' });
  t.same(await w.ended, { status: 200, clean: true });
  t.same(summary(w.lines), ['ADDED a', 'BOOKMARK ']);
  t.equal(w.lines[1]!.object.metadata.resourceVersion, fake.get('apps/v1', 'Deployment', 'apps', 'a')!.metadata.resourceVersion);
  t.equal(fake.openWatches, 0);
});

t.test('tests can cut watches or end them with 410; RBAC needs the watch verb; named watches are refused', async (t) => {
  const fake = await startFakeKube();
  t.teardown(() => fake.close());
  const cut = await watch(fake, DEPLOYMENTS);
  const expiring = await watch(fake, DEPLOYMENTS);
  await until(() => fake.openWatches === 2);
  t.equal(fake.expireWatches(), 2, 'both told to go');
  t.match(await expiring.ended, { clean: true });
  t.match(expiring.lines, [{ type: 'ERROR', object: { code: 410 } }]);
  t.equal(fake.openWatches, 0);

  const dropped = await watch(fake, DEPLOYMENTS);
  await until(() => fake.openWatches === 1);
  t.equal(fake.dropWatches(), 1);
  t.same(await dropped.ended, { status: 200, clean: false }, 'cut mid-stream: no clean end');
  await cut.ended;

  fake.allow = [{ group: 'apps', resource: 'deployments', verbs: ['get', 'list'] }];
  const refused = await watch(fake, DEPLOYMENTS);
  t.match(await refused.ended, {
    status: 403,
    body: { reason: 'Forbidden', message: /cannot watch resource "deployments" in API group "apps" in the namespace "apps"$/ },
  });
  fake.allow = undefined;
  t.match(await (await watch(fake, `${DEPLOYMENTS}/a`)).ended, { status: 400, body: { reason: 'BadRequest' } });
  t.match(await (await watch(fake, DEPLOYMENTS, { fieldSelector: 'spec.paused=true' })).ended, { status: 400 });
  t.match(
    fake.requests.filter((r) => r.query.watch === 'true').map((r) => r.status),
    [200, 200, 200, 403, 400, 400],
  );
});
