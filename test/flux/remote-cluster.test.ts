import t from 'tap';
import type { K8sObject } from '../../src/flux/k8s-objects.js';
import { fluxObjectDefaults, kubeConfigRefOf, remoteClusterName } from '../../src/flux/remote-cluster.js';

const obj = (kubeConfig: unknown, annotations?: Record<string, string>): K8sObject => ({
  metadata: { name: 'apps', namespace: 'flux-system', ...(annotations ? { annotations } : {}) },
  spec: kubeConfig === undefined ? {} : { kubeConfig },
});

t.test('spec.kubeConfig: local, a Secret, a ConfigMap, or why it cannot be used', (t) => {
  const table: Array<[unknown, ReturnType<typeof kubeConfigRefOf>]> = [
    [undefined, undefined],
    [null, undefined],
    [{ secretRef: { name: 'prod-eu-kubeconfig' } }, { kind: 'secret', name: 'prod-eu-kubeconfig', key: undefined }],
    [{ secretRef: { name: 'x', key: 'value.yaml' } }, { kind: 'secret', name: 'x', key: 'value.yaml' }],
    [{ secretRef: { name: ' x ', key: '' } }, { kind: 'secret', name: 'x', key: undefined }],
    [{ configMapRef: { name: 'eks-prod' } }, { kind: 'configMap', name: 'eks-prod' }],
    [
      { secretRef: { name: 'x' }, configMapRef: { name: 'y' } },
      { kind: 'secret', name: 'x', key: undefined },
    ],
    [{}, { kind: 'invalid', reason: 'spec.kubeConfig names neither secretRef.name nor configMapRef.name' }],
    [{ secretRef: { name: 7 } }, { kind: 'invalid', reason: 'spec.kubeConfig names neither secretRef.name nor configMapRef.name' }],
    ['text', { kind: 'invalid', reason: 'spec.kubeConfig is not an object' }],
    [[], { kind: 'invalid', reason: 'spec.kubeConfig is not an object' }],
  ];
  for (const [spec, want] of table) t.same(kubeConfigRefOf(obj(spec)), want, JSON.stringify(spec));
  t.end();
});

t.test('the cluster name: annotation, else the Secret name without -kubeconfig, else the name', (t) => {
  const secret = (name: string) => ({ kind: 'secret' as const, name, key: undefined });
  const table: Array<[Record<string, string> | undefined, Parameters<typeof remoteClusterName>[1], string]> = [
    [undefined, secret('prod-eu-kubeconfig'), 'prod-eu'],
    [undefined, secret('prod-eu'), 'prod-eu'],
    [undefined, secret('-kubeconfig'), '-kubeconfig'],
    [undefined, secret('kubeconfig'), 'kubeconfig'],
    [undefined, secret('a-kubeconfig-kubeconfig'), 'a-kubeconfig'],
    [undefined, { kind: 'configMap', name: 'eks-prod' }, 'eks-prod'],
    [{ 'github-deployment-bridge.io/cluster': 'eu-1' }, secret('prod-eu-kubeconfig'), 'eu-1'],
    [{ 'github-deployment-bridge.io/cluster': '  eu-1 ' }, secret('prod-eu-kubeconfig'), 'eu-1'],
    [{ 'github-deployment-bridge.io/cluster': '   ' }, secret('prod-eu-kubeconfig'), 'prod-eu'],
    [{ 'github-deployment-bridge.io/cluster': 'a\nb' }, secret('prod-eu-kubeconfig'), 'prod-eu'],
    [{ 'github-deployment-bridge.io/cluster': 'x'.repeat(300) }, secret('s'), 'x'.repeat(253)],
  ];
  for (const [annotations, ref, want] of table)
    t.equal(remoteClusterName(obj({}, annotations), ref), want, `${JSON.stringify(annotations)} ${ref.name}`);
  t.end();
});

t.test("the Flux object's defaults for its workloads: cluster, environment, production, transient only", (t) => {
  const p = 'github-deployment-bridge.io/';
  t.same(fluxObjectDefaults(obj(undefined)), {});
  t.same(
    fluxObjectDefaults(
      obj(undefined, {
        [`${p}cluster`]: 'eu-1',
        [`${p}environment`]: 'production',
        [`${p}production`]: 'true',
        [`${p}transient`]: 'false',
        [`${p}auto-report`]: 'true',
        [`${p}repository`]: 'acme/web',
        cluster: 'not ours',
      }),
    ),
    { cluster: 'eu-1', environment: 'production', production: 'true', transient: 'false' },
    'opt-in and metadata stay the workload’s own',
  );
  t.same(fluxObjectDefaults(obj(undefined, { [`${p}environment`]: ' ' })), {}, 'blank counts as absent');
  t.end();
});
