/** Rollout tracking: which workloads a reconcile leaves followed, and when a watch's sighting wakes their sources. */
import t from 'tap';
import { pino } from 'pino';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import type { K8sObject, KubeReader } from '../../src/kube/kube-types.js';
import { RECHECK_INITIAL_MS } from '../../src/lifecycle/recheck-delay.js';
import { RolloutTracking } from '../../src/runtime/rollout-tracking.js';
import { queueWakes } from '../../src/runtime/rollout-wakes.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { deployment, statefulSet } from '../harness/flux-objects.js';
import { openDatabase } from '../harness/database.js';

const OPT_IN = { 'github-deployment-bridge.io/auto-report': 'true' };
const APPS: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const WEB: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'web' };
const containers = [{ name: 'app', image: 'ghcr.io/acme/web:1' }];

/** A Deployment `apps/<name>` as served at resourceVersion `rv`. */
function dep(name: string, rollout: 'progressing' | 'complete' | 'failed', rv: string, o: { optIn?: boolean; paused?: boolean } = {}) {
  const d = deployment({ namespace: 'apps', name, containers, rollout, ...(o.optIn === false ? {} : { annotations: OPT_IN }) });
  return {
    ...d,
    metadata: { ...d.metadata, resourceVersion: rv },
    spec: { ...d.spec, ...(o.paused ? { paused: true } : {}) },
  } as K8sObject;
}

function setup(held = true) {
  const calls: string[] = [];
  const woken: string[] = [];
  const fellBack: string[] = [];
  const names = (refs: SourceRef[]) => refs.map((r) => r.name).join(',');
  const tracking = new RolloutTracking({
    watches: {
      hold: (kind, ns) => {
        calls.push(`hold ${kind}/${ns}`);
        return held;
      },
      release: (kind, ns) => calls.push(`release ${kind}/${ns}`),
    },
    wake: (refs) => woken.push(names(refs)),
    fallBack: (refs) => fellBack.push(names(refs)),
    log: pino({ level: 'silent' }),
  });
  /** One reconcile of `ref` that reads `objects` through the tracking; returns what `end()` answered. */
  const reconcile = async (ref: SourceRef, objects: K8sObject[]) => {
    const byName = new Map(objects.map((o) => [o.metadata.name, o]));
    const base = {
      getWorkload: (kind: string, _ns: string, name: string) =>
        Promise.resolve(kind === (byName.get(name)?.kind ?? '') ? byName.get(name)! : null),
    } as unknown as KubeReader;
    const { reader, end } = tracking.begin(ref, base);
    for (const o of objects) await reader.getWorkload(o.kind as 'Deployment', 'apps', o.metadata.name);
    return end();
  };
  return { tracking, calls, woken, fellBack, reconcile };
}

t.test('a reconcile follows its opted-in workloads still rolling out or paused, and nothing else', async (t) => {
  const s = setup();
  const watched = await s.reconcile(APPS, [
    dep('rolling', 'progressing', '10'),
    dep('done', 'complete', '11'),
    dep('failed', 'failed', '12'),
    dep('not-opted-in', 'progressing', '13', { optIn: false }),
    dep('paused', 'progressing', '14', { paused: true }),
  ]);
  t.equal(watched, true, 'every followed workload under a held watch');
  t.same(s.tracking.size, { workloads: 2, sources: 1 });
  t.same(s.calls, ['hold Deployment/apps', 'hold Deployment/apps']);
  t.equal(await s.reconcile(WEB, [dep('done', 'complete', '11')]), false, 'nothing followed: nothing watched');
  t.same(s.tracking.size, { workloads: 2, sources: 1 });
});

t.test('a watch that sees a followed workload end wakes its sources; progress alone does not', async (t) => {
  const s = setup();
  await s.reconcile(APPS, [dep('web', 'progressing', '10')]);
  await s.reconcile(WEB, [dep('web', 'progressing', '10')]);
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('web', 'progressing', '11'));
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('other', 'complete', '12'));
  t.same(s.woken, [], 'still progressing; an unfollowed workload');
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('web', 'complete', '13'));
  t.same(s.woken, ['apps,web'], 'both sources at once');
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('web', 'complete', '14'));
  t.same(s.woken, ['apps,web'], 'once per change of verdict');
});

t.test('failed, paused, resumed and deleted wake too', async (t) => {
  const s = setup();
  await s.reconcile(APPS, [dep('a', 'progressing', '1'), dep('b', 'progressing', '2'), dep('c', 'progressing', '3', { paused: true })]);
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('a', 'failed', '4'));
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('b', 'progressing', '5', { paused: true }));
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('c', 'progressing', '6'));
  t.same(s.woken, ['apps', 'apps', 'apps']);
  await s.reconcile(WEB, [dep('d', 'progressing', '7')]);
  s.tracking.changed('Deployment', 'apps', 'DELETED', dep('d', 'progressing', '8'));
  t.same(s.woken.at(-1), 'web');
});

t.test('a change the watch saw before the reconcile registered it is not missed', async (t) => {
  const s = setup();
  await s.reconcile(APPS, [dep('a', 'progressing', '1')]);
  // The watch sees web finish while another source's reconcile is still publishing what it read earlier.
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('web', 'complete', '9'));
  await s.reconcile(WEB, [dep('web', 'progressing', '8')]);
  t.same(s.woken, ['web'], 'woken as soon as it is followed');
  const same = setup();
  await same.reconcile(APPS, [dep('a', 'progressing', '1')]);
  same.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('web', 'progressing', '8'));
  await same.reconcile(WEB, [dep('web', 'progressing', '8')]);
  t.same(same.woken, [], 'the same version as read: nothing to do');
});

t.test('a listing (start, 410) is compared too; a followed workload missing from it was deleted', async (t) => {
  const s = setup();
  await s.reconcile(APPS, [dep('a', 'progressing', '1'), dep('b', 'progressing', '2'), dep('c', 'progressing', '3')]);
  s.tracking.synced('Deployment', 'apps', [dep('a', 'complete', '5'), dep('b', 'progressing', '2')]);
  t.same(s.woken, ['apps', 'apps'], 'a finished, c is gone; b unchanged');
});

t.test('a workload no source follows any more is dropped; its watch released with the last one', async (t) => {
  const s = setup();
  await s.reconcile(APPS, [dep('a', 'progressing', '1'), dep('b', 'progressing', '2')]);
  await s.reconcile(WEB, [dep('b', 'progressing', '2')]);
  const db = statefulSet({
    namespace: 'apps',
    name: 'db',
    containers,
    annotations: OPT_IN,
    status: { currentRevision: 'x', updateRevision: 'y' },
  });
  await s.reconcile(APPS, [dep('a', 'complete', '3'), dep('b', 'progressing', '2'), db]);
  t.same(
    s.calls.filter((c) => c.startsWith('release')),
    [],
    'b is still followed',
  );
  await s.reconcile(WEB, []);
  await s.reconcile(APPS, [dep('b', 'complete', '4'), db]);
  t.same(
    s.calls.filter((c) => c.startsWith('release')),
    ['release Deployment/apps'],
    'no Deployment followed there any more; the StatefulSet watch stays',
  );
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('b', 'failed', '9'));
  t.same(s.woken, [], 'sightings of a released watch wake nobody');
  t.same(s.tracking.size, { workloads: 1, sources: 1 });
});

t.test('a watch not held: end() says so; a watch lost sends its sources back to the re-check schedule', async (t) => {
  const s = setup(false);
  t.equal(await s.reconcile(APPS, [dep('a', 'progressing', '1')]), false);
  await s.reconcile(WEB, [dep('b', 'progressing', '1')]);
  s.tracking.lost('Deployment', 'apps', 'forbidden');
  s.tracking.lost('StatefulSet', 'apps', 'forbidden');
  t.same(s.fellBack, ['apps,web'], 'once, with every source there; nobody for a kind nothing follows');
});

t.test('queueWakes: a woken source is due now, even one being reconciled; a fallback gets the first re-check delay', (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const queue = new QueueStore(db);
  let notified = 0;
  const now = 1_000_000;
  const wakes = queueWakes({ queue, notify: () => notified++, now: () => now, log: pino({ level: 'silent' }) });
  queue.schedule(APPS, now + 300_000);
  wakes.wake([APPS]);
  t.same(
    queue.claim(now, 10).map((i) => [i.name, i.viaResync]),
    [['apps', false]],
    'the later re-check made due now',
  );
  wakes.wake([APPS]);
  queue.complete(APPS, now);
  t.same(
    queue.claim(now, 10).map((i) => i.name),
    ['apps'],
    'woken while active: runs once more',
  );
  queue.complete(APPS, now);
  wakes.fallBack([WEB]);
  t.equal(queue.nextDue(), now + RECHECK_INITIAL_MS);
  t.equal(notified, 3);
  db.close();
  wakes.wake([WEB]);
  t.equal(notified, 3, 'a queue that cannot be written: logged, nobody woken');
  t.end();
});
