/** Rollout tracking per cluster: a spoke's workloads are followed by that spoke's own watches, the hub's by the hub's. */
import t from 'tap';
import { pino } from 'pino';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import type { K8sObject, KubeReader } from '../../src/kube/kube-types.js';
import type { WorkloadWatchEvents } from '../../src/kube/rollout-watch.js';
import type { WatchTransport } from '../../src/kube/watch-stream.js';
import type { SpokeFollowing } from '../../src/reconcile/source-cluster.js';
import { RolloutTracking } from '../../src/runtime/rollout-tracking.js';
import { deployment } from '../harness/flux-objects.js';

const OPT_IN = { 'github-deployment-bridge.io/auto-report': 'true' };
const WEB: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'web' };
const API: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'api' };

function dep(name: string, rollout: 'progressing' | 'complete', rv: string): K8sObject {
  const d = deployment({ namespace: 'apps', name, containers: [{ name: 'app', image: 'x:1' }], rollout, annotations: OPT_IN });
  return { ...d, metadata: { ...d.metadata, resourceVersion: rv } };
}

/** A transport that is never used here: only its identity matters (one per spoke credentials). */
const transport = (): WatchTransport => ({
  list: () => Promise.reject(new Error('unused')),
  watch: () => ({ ended: new Promise(() => undefined), close: () => undefined }),
});

function setup(o: { spokes?: boolean } = {}) {
  const calls: string[] = [];
  const events = new Map<string, WorkloadWatchEvents>();
  const woken: string[] = [];
  const watchesFor = (cluster: string, n: number) => ({
    hold: (kind: string, ns: string) => (calls.push(`${cluster}#${n} hold ${kind}/${ns}`), true),
    release: (kind: string, ns: string) => calls.push(`${cluster}#${n} release ${kind}/${ns}`),
    stop: () => calls.push(`${cluster}#${n} stop`),
  });
  let built = 0;
  const tracking = new RolloutTracking({
    watches: watchesFor('hub', 0),
    ...(o.spokes === false
      ? {}
      : {
          spokeWatches: (cluster: string, _t: WatchTransport, e: WorkloadWatchEvents) => {
            events.set(cluster, e);
            return watchesFor(cluster, ++built);
          },
        }),
    wake: (refs) => woken.push(refs.map((r) => r.name).join(',')),
    fallBack: () => undefined,
    log: pino({ level: 'silent' }),
  });
  /** One reconcile of `ref` reading `object` in `cluster` ('' for the hub) over `via`. */
  const reconcile = async (ref: SourceRef, cluster: string, object: K8sObject, via: WatchTransport) => {
    const inner = { getWorkload: () => Promise.resolve(object) } as unknown as KubeReader;
    const { reader, end } = tracking.begin(ref, inner);
    const spoke = reader as KubeReader & SpokeFollowing;
    const r = cluster === '' ? reader : spoke.throughSpoke!(cluster, inner, via);
    await r.getWorkload('Deployment', 'apps', object.metadata.name);
    return end();
  };
  return { tracking, calls, events, woken, reconcile };
}

t.test("a spoke's rolling workload is held on that spoke's watches; its end wakes through them, and they are released", async (t) => {
  const s = setup();
  const eu = transport();
  t.equal(await s.reconcile(WEB, 'prod-eu', dep('web', 'progressing', '1'), eu), true);
  t.equal(await s.reconcile(API, '', dep('web', 'progressing', '1'), eu), true, 'the same name in the hub is another workload');
  t.same(s.calls, ['prod-eu#1 hold Deployment/apps', 'hub#0 hold Deployment/apps']);
  s.tracking.changed('Deployment', 'apps', 'MODIFIED', dep('web', 'complete', '2'));
  t.same(s.woken, ['api'], "the hub's watch wakes the hub's source only");
  s.events.get('prod-eu')!.changed('Deployment', 'apps', 'MODIFIED', dep('web', 'complete', '2'));
  t.same(s.woken, ['api', 'web'], "the spoke's watch wakes the spoke's source");
  await s.reconcile(WEB, 'prod-eu', dep('web', 'complete', '2'), eu);
  t.same(s.calls.at(-1), 'prod-eu#1 release Deployment/apps', 'nothing rolls out in the spoke: its watch closed');
});

t.test("new credentials (a new transport) move the spoke's held watches onto new ones; other spokes keep theirs", async (t) => {
  const s = setup();
  const eu = transport();
  await s.reconcile(WEB, 'prod-eu', dep('web', 'progressing', '1'), eu);
  await s.reconcile(API, 'prod-us', dep('api', 'progressing', '1'), transport());
  await s.reconcile(WEB, 'prod-eu', dep('web', 'progressing', '1'), eu);
  t.same(s.calls, ['prod-eu#1 hold Deployment/apps', 'prod-us#2 hold Deployment/apps', 'prod-eu#1 hold Deployment/apps']);
  s.calls.length = 0;
  await s.reconcile(WEB, 'prod-eu', dep('web', 'progressing', '1'), transport());
  t.same(s.calls, ['prod-eu#1 stop', 'prod-eu#3 hold Deployment/apps', 'prod-eu#3 hold Deployment/apps']);
  s.tracking.stopSpokes();
  t.same(s.calls.slice(-2).sort(), ['prod-eu#3 stop', 'prod-us#2 stop']);
});

t.test('without spoke watches a spoke rollout is not held: the re-check schedule follows it', async (t) => {
  const s = setup({ spokes: false });
  t.equal(await s.reconcile(WEB, 'prod-eu', dep('web', 'progressing', '1'), transport()), false);
  t.same(s.calls, []);
});
