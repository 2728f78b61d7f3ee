/** A spoke's watch transport counts its outages against the spoke like other reads; its answers (403, 404) do not. */
import t from 'tap';
import { KubeError } from '../../src/common/errors.js';
import { ClusterUnavailable } from '../../src/kube/spoke-gate.js';
import { healthOfWatches } from '../../src/kube/spoke-watch.js';
import type { WatchEnd, WatchTransport } from '../../src/kube/watch-stream.js';

function setup(listErr: KubeError | null, end: WatchEnd) {
  const seen: string[] = [];
  const inner: WatchTransport = {
    list: () => (listErr ? Promise.reject(listErr) : Promise.resolve({ items: [], resourceVersion: '5' })),
    watch: () => ({ ended: Promise.resolve(end), close: () => undefined }),
  };
  const w = healthOfWatches(
    'prod-eu',
    inner,
    { answered: (at) => seen.push(`answered ${at}`), failed: (f, m) => seen.push(`${f}: ${m}`) },
    () => 7,
  );
  return { w, seen };
}

const cases: Array<{ name: string; err: KubeError; failed: string | null }> = [
  { name: 'refused connection', err: new KubeError('Kubernetes API: LIST x failed: connect ECONNREFUSED'), failed: 'unreachable' },
  { name: 'timeout', err: new KubeError('Kubernetes API: LIST x timed out after 10000 ms'), failed: 'timeout' },
  { name: 'TLS', err: new KubeError('Kubernetes API: LIST x failed: self-signed certificate'), failed: 'tls' },
  { name: '401', err: new KubeError('Kubernetes API: LIST x failed: 401 Unauthorized', 401), failed: 'unauthorized' },
  { name: '503', err: new KubeError('Kubernetes API: LIST x failed: 503', 503), failed: 'server_error' },
  { name: '403 (RBAC: an answer)', err: new KubeError('Kubernetes API: LIST x failed: 403 forbidden', 403), failed: null },
];

for (const c of cases) {
  t.test(`list: ${c.name}`, async (t) => {
    const { w, seen } = setup(c.err, { reason: 'closed' });
    const err = await w.list('/x', 1000).catch((e: unknown) => e);
    if (c.failed === null) {
      t.equal(err, c.err, 'thrown as it was');
      t.same(seen, [], 'not counted against the spoke');
      return;
    }
    t.type(err, ClusterUnavailable);
    t.match(err, { cluster: 'prod-eu', failure: c.failed });
    t.same(seen, [`${c.failed}: cluster prod-eu: ${c.err.message}`]);
  });
  t.test(`watch ending: ${c.name}`, async (t) => {
    const { w, seen } = setup(null, { reason: 'failed', error: c.err });
    await w.watch('/x', {}, () => undefined, 1000).ended;
    await new Promise((r) => setImmediate(r));
    t.same(seen, c.failed === null ? [] : [`${c.failed}: cluster prod-eu: ${c.err.message}`]);
  });
}

t.test('a list that works says the spoke answers; a watch the server ends or 410 is no failure', async (t) => {
  const ok = setup(null, { reason: 'gone' });
  t.same(await ok.w.list('/x', 1000), { items: [], resourceVersion: '5' });
  await ok.w.watch('/x', {}, () => undefined, 1000).ended;
  await new Promise((r) => setImmediate(r));
  t.same(ok.seen, ['answered 7']);
});
