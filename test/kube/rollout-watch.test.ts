/** The (kind, namespace) watches over a scripted transport: when they list, resume, back off and give up. */
import t from 'tap';
import { pino } from 'pino';
import { KubeError } from '../../src/common/errors.js';
import type { K8sObject, WorkloadKind } from '../../src/kube/kube-types.js';
import {
  WATCH_LOST_AFTER_FAILURES,
  WATCH_RETRY_BASE_MS,
  WATCH_RETRY_CAP_MS,
  WorkloadWatches,
  watchRetryDelay,
} from '../../src/kube/rollout-watch.js';
import { scripted, until } from '../harness/scripted-watch.js';

const obj = (name: string, rv: string): K8sObject => ({ metadata: { name, namespace: 'apps', resourceVersion: rv } });

function setup(t: { teardown(fn: () => unknown): void }, maxWatches?: number) {
  const s = scripted();
  const heard: string[] = [];
  let clock = 0;
  const held = new WorkloadWatches({
    transport: s.transport,
    events: {
      synced: (kind: WorkloadKind, ns: string, objects: K8sObject[]) =>
        heard.push(`synced ${kind}/${ns} ${objects.map((o) => o.metadata.name).join(',')}`),
      changed: (kind, ns, type, o) => heard.push(`${type} ${kind}/${ns}/${o.metadata.name}`),
      lost: (kind, ns) => heard.push(`lost ${kind}/${ns}`),
    },
    log: pino({ level: 'silent' }),
    now: () => clock,
    random: () => 1,
    ...(maxWatches !== undefined ? { maxWatches } : {}),
  });
  t.teardown(() => held.stop());
  return { ...s, heard, held, advance: (ms: number) => (clock += ms) };
}

const PATH = '/apis/apps/v1/namespaces/apps/deployments';

t.test('lists, then watches from the list’s version; follows the version through events; resumes after a clean end', async (t) => {
  const s = setup(t);
  s.lists.push({ items: [obj('a', '10'), obj('b', '11')], resourceVersion: '12' });
  t.equal(s.held.hold('Deployment', 'apps'), true, 'held while it starts');
  t.equal(s.held.hold('Deployment', 'apps'), true, 'one watch per kind and namespace');
  await until(() => s.watches.length === 1);
  t.same(s.heard, ['synced Deployment/apps a,b']);
  const w = s.watches[0]!;
  t.same(w.query.resourceVersion, '12');
  t.equal(w.query.allowWatchBookmarks, 'true');
  t.ok(Number(w.query.timeoutSeconds) >= 300, 'the server ends it after minutes');
  w.emit({ type: 'MODIFIED', object: obj('a', '13') });
  w.emit({ type: 'BOOKMARK', object: obj('', '20') });
  t.same(s.heard.slice(1), ['MODIFIED Deployment/apps/a'], 'bookmarks only move the version');
  s.advance(300_000);
  w.end({ reason: 'closed' });
  await until(() => s.watches.length === 2);
  t.equal(s.watches[1]!.query.resourceVersion, '20', 'resumed from the last version seen');
  t.same(s.calls, [`list ${PATH}`, `watch ${PATH} from 12`, `watch ${PATH} from 20`], 'no second list');
});

t.test('410 Gone lists again; a dropped connection resumes at once, then backs off', async (t) => {
  const s = setup(t);
  s.lists.push({ items: [], resourceVersion: '5' }, { items: [obj('a', '30')], resourceVersion: '31' });
  s.held.hold('Deployment', 'apps');
  await until(() => s.watches.length === 1);
  s.watches[0]!.end({ reason: 'gone' });
  await until(() => s.watches.length === 2);
  t.same(s.heard, ['synced Deployment/apps ', 'synced Deployment/apps a']);
  t.equal(s.watches[1]!.query.resourceVersion, '31');
  s.watches[1]!.end({ reason: 'failed', error: new KubeError('connection dropped') });
  await until(() => s.watches.length === 3);
  t.equal(s.watches[2]!.query.resourceVersion, '31', 'the first failure resumes at once, from where it was');
  const second = Date.now();
  s.watches[2]!.end({ reason: 'failed', error: new KubeError('connection dropped') });
  await until(() => s.watches.length === 4);
  t.ok(Date.now() - second >= WATCH_RETRY_BASE_MS * 0.75 - 10, 'the second waits');
  t.notOk(
    s.heard.some((h) => h.startsWith('lost')),
    'two failures: still held',
  );
  t.equal(s.held.hold('Deployment', 'apps'), true);
});

t.test('failing again and again: reported lost once, not held, held again once it works', async (t) => {
  const s = setup(t);
  s.lists.push({ items: [], resourceVersion: '5' });
  s.held.hold('Deployment', 'apps');
  for (let i = 1; i <= WATCH_LOST_AFTER_FAILURES; i++) {
    await until(() => s.watches.length === i);
    s.watches[i - 1]!.end({ reason: 'failed', error: new KubeError('connection refused') });
  }
  await until(() => s.heard.includes('lost Deployment/apps'));
  t.equal(s.held.hold('Deployment', 'apps'), false, 'lost: its rollouts need the re-check schedule');
  await until(() => s.watches.length === WATCH_LOST_AFTER_FAILURES + 1);
  s.watches.at(-1)!.emit({ type: 'MODIFIED', object: obj('a', '40') });
  t.equal(s.held.hold('Deployment', 'apps'), true, 'an event: held again');
  t.equal(s.heard.filter((h) => h.startsWith('lost')).length, 1);
});

t.test('refused (403 on the list or the watch): lost at once; release ends it; the number of watches is bounded', async (t) => {
  const s = setup(t, 2);
  s.lists.push(new KubeError('forbidden', 403));
  t.equal(s.held.hold('Deployment', 'apps'), true);
  await until(() => s.heard.includes('lost Deployment/apps'));
  t.equal(s.held.hold('Deployment', 'apps'), false);

  s.lists.push({ items: [], resourceVersion: '1' });
  s.held.hold('StatefulSet', 'apps');
  await until(() => s.watches.length === 1);
  s.watches[0]!.end({ reason: 'failed', error: new KubeError('forbidden', 403) });
  await until(() => s.heard.includes('lost StatefulSet/apps'));

  t.equal(s.held.size, 2);
  t.equal(s.held.hold('DaemonSet', 'apps'), false, 'over the bound: not watched');
  t.equal(s.held.size, 2);
  s.held.release('Deployment', 'apps');
  s.held.release('StatefulSet', 'apps');
  t.equal(s.held.size, 0);
  s.lists.push({ items: [], resourceVersion: '1' });
  t.equal(s.held.hold('DaemonSet', 'apps'), true, 'room again');
  await until(() => s.watches.length === 2);
  s.held.release('DaemonSet', 'apps');
  t.equal(s.watches[1]!.closed, true, 'release closes the connection');
  await new Promise((r) => setTimeout(r, 20));
  t.equal(s.watches.length, 2, 'and nothing reopens it');
});

t.test('a watch the server ends right after it started counts as a failure, so it cannot spin', async (t) => {
  const s = setup(t);
  s.lists.push({ items: [], resourceVersion: '1' });
  s.held.hold('Deployment', 'apps');
  for (let i = 1; i <= WATCH_LOST_AFTER_FAILURES; i++) {
    await until(() => s.watches.length === i);
    s.watches[i - 1]!.end({ reason: 'closed' });
  }
  await until(() => s.heard.includes('lost Deployment/apps'));
  t.pass('reported lost');
});

t.test('watchRetryDelay: at once, then doubling from a second to the cap, less up to a quarter', (t) => {
  t.same(
    [0, 1, 2, 3, 4, 5, 6, 7, 50].map((n) => watchRetryDelay(n, () => 0)),
    [0, 0, 1_000, 2_000, 4_000, 8_000, 16_000, WATCH_RETRY_CAP_MS, WATCH_RETRY_CAP_MS],
  );
  t.equal(
    watchRetryDelay(2, () => 1),
    750,
  );
  t.end();
});

t.test('a listener that throws is logged; the watch goes on', async (t) => {
  const s = scripted();
  const seen: string[] = [];
  const held = new WorkloadWatches({
    transport: s.transport,
    events: {
      synced: () => {
        throw new Error('listener bug');
      },
      changed: (_kind, _ns, _type, o) => {
        if (o.metadata.name === 'bad') throw new Error('listener bug');
        seen.push(o.metadata.name);
      },
      lost: () => undefined,
    },
    log: pino({ level: 'silent' }),
    now: () => 0,
  });
  t.teardown(() => held.stop());
  s.lists.push({ items: [obj('a', '1')], resourceVersion: '1' });
  held.hold('Deployment', 'apps');
  await until(() => s.watches.length === 1);
  s.watches[0]!.emit({ type: 'MODIFIED', object: obj('bad', '2') });
  s.watches[0]!.emit({ type: 'MODIFIED', object: obj('good', '3') });
  t.same(seen, ['good']);
  t.same(s.calls, [`list ${PATH}`, `watch ${PATH} from 1`], 'no failure counted, no second list');
});
