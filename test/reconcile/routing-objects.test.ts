import t from 'tap';
import type { RoutingRef } from '../../src/flux/inventory.js';
import { routingObjects } from '../../src/reconcile/routing-objects.js';
import { MemoryKube } from './in-memory.js';

const ref = (kind: RoutingRef['kind'], name: string): RoutingRef => ({
  namespace: 'apps',
  name,
  group: kind === 'Ingress' ? 'networking.k8s.io' : '',
  kind,
});

/** A MemoryKube that counts its routing reads. */
function kube() {
  const k = new MemoryKube();
  let reads = 0;
  const read = k.getRoutingObject.bind(k);
  k.getRoutingObject = (...args) => {
    reads++;
    return read(...args);
  };
  k.put({ kind: 'Service', metadata: { name: 'web', namespace: 'apps' } });
  k.put({ kind: 'Ingress', metadata: { name: 'web', namespace: 'apps' } });
  return { k, reads: () => reads };
}

t.test('read on first need, once, in inventory order; a missing object is left out', async (t) => {
  const { k, reads } = kube();
  const objects = routingObjects(k, [ref('Service', 'web'), ref('Ingress', 'gone'), ref('Ingress', 'web')]);
  t.equal(reads(), 0, 'nothing read before it is needed');
  const first = await objects.read();
  t.same(
    first.map((o) => `${o.kind}/${o.metadata.name}`),
    ['Service/web', 'Ingress/web'],
  );
  t.equal(await objects.read(), first, 'the same answer for every workload of the source');
  t.equal(reads(), 3);
});

t.test('Services alone route nothing: not read', async (t) => {
  const { k, reads } = kube();
  t.same(await routingObjects(k, [ref('Service', 'web')]).read(), []);
  t.same(await routingObjects(k, []).read(), []);
  t.equal(reads(), 0);
});

t.test('an outage is thrown, as for the workload reads', async (t) => {
  const { k } = kube();
  k.down = 'connection refused';
  await t.rejects(routingObjects(k, [ref('Ingress', 'web')]).read(), /connection refused/);
});
