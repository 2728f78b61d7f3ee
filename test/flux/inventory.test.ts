import t from 'tap';
import {
  missingInventory,
  parseInventoryId,
  routingFromInventory,
  workloadsFromInventory,
  type InventoryRef,
} from '../../src/flux/inventory.js';
import { inventoryOf, kustomization } from '../harness/flux-objects.js';

t.test('parseInventoryId', (t) => {
  const rows: Array<[string, InventoryRef | undefined]> = [
    ['apps_podinfo_apps_Deployment', { namespace: 'apps', name: 'podinfo', group: 'apps', kind: 'Deployment' }],
    ['_podinfo__Namespace', { namespace: '', name: 'podinfo', group: '', kind: 'Namespace' }],
    ['default_svc__Service', { namespace: 'default', name: 'svc', group: '', kind: 'Service' }],
    ['apps_podinfo-7c9b8d6f5_apps_ReplicaSet', { namespace: 'apps', name: 'podinfo-7c9b8d6f5', group: 'apps', kind: 'ReplicaSet' }],
    ['jobs_migrate_batch_Job', { namespace: 'jobs', name: 'migrate', group: 'batch', kind: 'Job' }],
    [
      '_podinfo-role_rbac.authorization.k8s.io_ClusterRole',
      { namespace: '', name: 'podinfo-role', group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
    ],
    [
      '_helmreleases.helm.toolkit.fluxcd.io_apiextensions.k8s.io_CustomResourceDefinition',
      { namespace: '', name: 'helmreleases.helm.toolkit.fluxcd.io', group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
    ],
    [
      '_system:aggregate-to-view_rbac.authorization.k8s.io_ClusterRole',
      { namespace: '', name: 'system:aggregate-to-view', group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
    ],
    ['', undefined],
    ['podinfo', undefined],
    ['apps_podinfo_Deployment', undefined],
    ['apps_podinfo_apps_Deployment_extra', undefined],
    ['apps__apps_Deployment', undefined],
    ['apps_podinfo_apps_', undefined],
    ['___', undefined],
    ['apps/podinfo/apps/Deployment', undefined],
  ];
  for (const [id, want] of rows) t.same(parseInventoryId(id), want, id || '(empty)');
  t.end();
});

const entries = (...ids: unknown[]) => ({ inventory: { entries: ids.map((id) => ({ id, v: 'v1' })) } });
const ref = (namespace: string, name: string, kind: string) => ({ namespace, name, group: 'apps', kind });

t.test('workloadsFromInventory', (t) => {
  const rows: Array<[string, Record<string, unknown> | undefined, unknown[]]> = [
    [
      'a typical app',
      entries(
        '_apps__Namespace',
        'apps_podinfo__Service',
        'apps_podinfo_apps_Deployment',
        'apps_podinfo_autoscaling_HorizontalPodAutoscaler',
      ),
      [ref('apps', 'podinfo', 'Deployment')],
    ],
    [
      'every workload kind, in inventory order',
      entries('a_web_apps_StatefulSet', 'a_agent_apps_DaemonSet', 'a_api_apps_Deployment', 'a_api-5d8f_apps_ReplicaSet'),
      [ref('a', 'web', 'StatefulSet'), ref('a', 'agent', 'DaemonSet'), ref('a', 'api', 'Deployment'), ref('a', 'api-5d8f', 'ReplicaSet')],
    ],
    [
      'Job and CronJob are ignored',
      entries('a_migrate_batch_Job', 'a_nightly_batch_CronJob', 'a_api_apps_Deployment'),
      [ref('a', 'api', 'Deployment')],
    ],
    ['core-group Service and ConfigMap are ignored', entries('default_svc__Service', 'default_cfg__ConfigMap'), []],
    ['cluster-scoped entries are ignored', entries('_podinfo__Namespace', '_x_apps_Deployment'), []],
    ['apps kinds that are not workloads are ignored', entries('a_rev_apps_ControllerRevision'), []],
    ['Deployment of another group is ignored', entries('a_api_extensions_Deployment', 'a_api_example.com_Deployment'), []],
    [
      'duplicates are reported once',
      entries('a_api_apps_Deployment', 'a_api_apps_Deployment', 'b_api_apps_Deployment'),
      [ref('a', 'api', 'Deployment'), ref('b', 'api', 'Deployment')],
    ],
    [
      'same name, different kinds are distinct',
      entries('a_api_apps_Deployment', 'a_api_apps_StatefulSet'),
      [ref('a', 'api', 'Deployment'), ref('a', 'api', 'StatefulSet')],
    ],
    [
      'malformed ids are skipped',
      entries('garbage', 'a_b_c', 'a_b_apps_Deployment_x', 'a__apps_Deployment', 'a_ok_apps_Deployment'),
      [ref('a', 'ok', 'Deployment')],
    ],
    ['non-string ids are skipped', entries(42, null, { id: 'x' }, 'a_ok_apps_Deployment'), [ref('a', 'ok', 'Deployment')]],
    [
      'entries that are not objects are skipped',
      { inventory: { entries: [null, 'a_x_apps_Deployment', 7, { id: 'a_ok_apps_Deployment' }] } },
      [ref('a', 'ok', 'Deployment')],
    ],
    ['entries not an array', { inventory: { entries: { id: 'a_ok_apps_Deployment' } } }, []],
    ['entries is a string', { inventory: { entries: 'a_ok_apps_Deployment' } }, []],
    ['empty entries', { inventory: { entries: [] } }, []],
    ['inventory without entries', { inventory: {} }, []],
    ['inventory is null', { inventory: null }, []],
    ['missing inventory (HelmRelease before Flux 2.8)', { conditions: [] }, []],
    ['missing status', undefined, []],
  ];
  for (const [name, status, want] of rows) t.same(workloadsFromInventory(status), want, name);
  t.end();
});

t.test('reads the inventory the harness builders write', (t) => {
  const k = kustomization({
    name: 'apps',
    inventory: [
      { namespace: '', name: 'apps', group: '', kind: 'Namespace' },
      { namespace: 'apps', name: 'podinfo', group: '', kind: 'Service' },
      { namespace: 'apps', name: 'podinfo', group: 'apps', kind: 'Deployment' },
      { namespace: 'apps', name: 'redis', group: 'apps', kind: 'StatefulSet' },
    ],
  });
  t.same(workloadsFromInventory(k.status), [ref('apps', 'podinfo', 'Deployment'), ref('apps', 'redis', 'StatefulSet')]);
  t.same(workloadsFromInventory(kustomization({ name: 'x', inventory: null }).status), []);
  t.same(
    inventoryOf([{ namespace: 'a', name: 'b', group: 'apps', kind: 'Deployment' }]).entries.map((e) => parseInventoryId(e.id)),
    [{ namespace: 'a', name: 'b', group: 'apps', kind: 'Deployment' }],
    'ids round-trip',
  );
  t.end();
});

t.test('routingFromInventory: Ingresses, HTTPRoutes and Services, deduplicated, in order', (t) => {
  const status = entries(
    'apps_web_apps_Deployment',
    'apps_web__Service',
    'apps_web_networking.k8s.io_Ingress',
    'apps_web_gateway.networking.k8s.io_HTTPRoute',
    'apps_web__Service',
    'apps_web_extensions_Ingress',
    'apps_web_example.io_HTTPRoute',
    '_web__Service',
    'apps_cfg__ConfigMap',
    42,
  );
  t.same(routingFromInventory(status), [
    { namespace: 'apps', name: 'web', group: '', kind: 'Service' },
    { namespace: 'apps', name: 'web', group: 'networking.k8s.io', kind: 'Ingress' },
    { namespace: 'apps', name: 'web', group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
  ]);
  t.same(routingFromInventory(undefined), []);
  t.same(routingFromInventory({ inventory: { entries: 'nope' } }), []);
  t.end();
});

t.test('missingInventory: why there is no inventory to walk, by kind', (t) => {
  const cases: Array<[string, string, Record<string, unknown> | undefined, RegExp | undefined]> = [
    ['an inventory', 'HelmRelease', { inventory: { entries: [] } }, undefined],
    ['an empty Kustomization inventory', 'Kustomization', { inventory: { entries: [] } }, undefined],
    ['a HelmRelease before Flux 2.8', 'HelmRelease', { history: [] }, /helm-controller records it from v1\.5 \(Flux 2\.8\)/],
    ['no status at all', 'HelmRelease', undefined, /^HelmRelease has no \.status\.inventory/],
    ['a Kustomization not applied yet', 'Kustomization', {}, /^Kustomization has no \.status\.inventory yet/],
    ['an inventory that is not an object', 'Kustomization', { inventory: 'x' }, /no \.status\.inventory/],
  ];
  for (const [name, kind, status, want] of cases) {
    const got = missingInventory(kind, status);
    if (want) t.match(got, want, name);
    else t.equal(got, undefined, name);
  }
  t.end();
});
