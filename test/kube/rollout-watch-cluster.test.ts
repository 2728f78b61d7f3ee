/** A spoke's watches (scope `cluster`): one per kind across the cluster, whatever the namespaces rolling out. */
import t from 'tap';
import { pino } from 'pino';
import { KubeError } from '../../src/common/errors.js';
import type { K8sObject } from '../../src/kube/kube-types.js';
import { WorkloadWatches } from '../../src/kube/rollout-watch.js';
import { scripted, until } from '../harness/scripted-watch.js';

const obj = (namespace: string, name: string, rv: string): K8sObject => ({ metadata: { name, namespace, resourceVersion: rv } });
const LIST = (ns: string) => `list /apis/apps/v1/namespaces/${ns}/deployments`;
const WATCH = (rv: string) => `watch /apis/apps/v1/deployments from ${rv}`;

function setup(t: { teardown(fn: () => unknown): void }) {
  const s = scripted();
  const heard: string[] = [];
  const held = new WorkloadWatches({
    transport: s.transport,
    events: {
      synced: (kind, ns, objects) => heard.push(`synced ${kind}/${ns} ${objects.map((o) => o.metadata.name).join(',')}`),
      changed: (kind, ns, type, o) => heard.push(`${type} ${kind}/${ns}/${o.metadata.name}`),
      lost: (kind, ns) => heard.push(`lost ${kind}/${ns}`),
    },
    log: pino({ level: 'silent' }),
    now: () => 0,
    random: () => 1,
    scope: 'cluster',
  });
  t.teardown(() => held.stop());
  return { ...s, heard, held };
}

t.test('two namespaces rolling out: one watch of the kind across the cluster, each namespace listed once', async (t) => {
  const s = setup(t);
  t.equal(s.held.size, 0, 'nothing rolls out: no watch');
  s.lists.push({ items: [obj('apps', 'a', '8')], resourceVersion: '10' }, { items: [obj('web', 'w', '9')], resourceVersion: '12' });
  t.equal(s.held.hold('Deployment', 'apps'), true);
  await until(() => s.watches.length === 1);
  t.equal(s.held.hold('Deployment', 'web'), true, 'a second namespace joins the held watch');
  await until(() => s.heard.length === 2);
  t.equal(s.held.size, 1, 'one watch for the spoke and kind');
  t.same(s.calls, [LIST('apps'), WATCH('10'), LIST('web')], 'no second watch; the joined namespace is listed');
  t.same(s.heard, ['synced Deployment/apps a', 'synced Deployment/web w']);

  const w = s.watches[0]!;
  w.emit({ type: 'MODIFIED', object: obj('apps', 'a', '13') });
  w.emit({ type: 'MODIFIED', object: obj('other', 'x', '14') });
  w.emit({ type: 'ADDED', object: obj('web', 'w2', '15') });
  t.same(s.heard.slice(2), ['MODIFIED Deployment/apps/a', 'ADDED Deployment/web/w2'], 'a namespace nobody follows is dropped');

  s.lists.push({ items: [], resourceVersion: '16' });
  t.equal(s.held.hold('StatefulSet', 'apps'), true);
  await until(() => s.watches.length === 2);
  t.equal(s.held.size, 2, 'one watch per kind');
  s.held.release('StatefulSet', 'apps');

  s.held.release('Deployment', 'web');
  t.equal(w.closed, false, 'apps still rolls out: the watch stays');
  w.emit({ type: 'MODIFIED', object: obj('web', 'w', '17') });
  t.equal(s.heard.length, 5, 'a released namespace is dropped');
  s.held.release('Deployment', 'apps');
  t.equal(w.closed, true, 'nothing rolls out any more: closed');
  t.equal(s.held.size, 0);
  await new Promise((r) => setTimeout(r, 20));
  t.equal(s.watches.length, 2, 'and nothing reopens it');
});

t.test('410 Gone lists every held namespace again, resuming from the first list; a refusal is lost for each', async (t) => {
  const s = setup(t);
  s.lists.push({ items: [], resourceVersion: '10' }, { items: [], resourceVersion: '12' });
  s.held.hold('Deployment', 'apps');
  await until(() => s.watches.length === 1);
  s.held.hold('Deployment', 'web');
  await until(() => s.calls.length === 3);
  s.lists.push({ items: [obj('apps', 'a', '19')], resourceVersion: '20' }, { items: [obj('web', 'w', '18')], resourceVersion: '21' });
  s.watches[0]!.end({ reason: 'gone' });
  await until(() => s.watches.length === 2);
  t.same(s.calls.slice(3), [LIST('apps'), LIST('web'), WATCH('20')]);
  t.same(s.heard.slice(-2), ['synced Deployment/apps a', 'synced Deployment/web w']);

  s.watches[1]!.end({ reason: 'failed', error: new KubeError('deployments.apps is forbidden', 403) });
  await until(() => s.heard.filter((h) => h.startsWith('lost')).length === 2);
  t.same(
    s.heard.filter((h) => h.startsWith('lost')),
    ['lost Deployment/apps', 'lost Deployment/web'],
    'each held namespace goes back to the re-check schedule',
  );
  t.equal(s.held.hold('Deployment', 'apps'), false, 'not held while refused');
});

t.test('a namespace that joins while the first list is out is listed before the watch starts', async (t) => {
  const s = setup(t);
  s.lists.push({ items: [], resourceVersion: '10' }, { items: [], resourceVersion: '11' });
  s.held.hold('Deployment', 'apps');
  s.held.hold('Deployment', 'web');
  await until(() => s.watches.length === 1);
  t.same(s.calls, [LIST('apps'), LIST('web'), WATCH('10')], 'from the first list: no change in either is missed');
});
