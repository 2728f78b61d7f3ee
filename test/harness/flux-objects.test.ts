import t from 'tap';
import { daemonSet, deployment, helmRelease, kustomization, namespace, statefulSet, type HistoryEntry } from './flux-objects.js';

/** The parts of a built Deployment's spec these tests read (a type, so a spec's Record converts to it). */
type DeploymentSpecView = {
  selector: unknown;
  template: {
    metadata: { annotations: Record<string, string> };
    spec: { initContainers: Array<{ imagePullPolicy: string }>; containers: Array<{ imagePullPolicy: string }> };
  };
};

const cond = (o: { status?: Record<string, unknown> }, type: string) =>
  (o.status?.conditions as Array<Record<string, unknown>>).find((c) => c.type === type);

t.test('kustomization: inventory ids, revisions and conditions like kustomize-controller', (t) => {
  const rev = `main@sha1:${'a'.repeat(40)}`;
  const ks = kustomization({
    name: 'apps',
    generation: 3,
    revision: rev,
    inventory: [
      { namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' },
      { namespace: 'apps', name: 'web', group: '', kind: 'Service' },
      { namespace: '', name: 'apps', group: '', kind: 'Namespace' },
    ],
  });
  t.equal(ks.metadata.namespace, 'flux-system');
  t.same((ks.status!.inventory as { entries: unknown }).entries, [
    { id: 'apps_web_apps_Deployment', v: 'v1' },
    { id: 'apps_web__Service', v: 'v1' },
    { id: '_apps__Namespace', v: 'v1' },
  ]);
  t.equal(ks.status?.lastAppliedRevision, rev);
  t.match(cond(ks, 'Ready'), {
    status: 'True',
    reason: 'ReconciliationSucceeded',
    message: `Applied revision: ${rev}`,
    observedGeneration: 3,
  });
  t.equal(ks.status?.observedGeneration, 3);

  const failing = kustomization({
    name: 'apps',
    revision: rev,
    lastAppliedRevision: `main@sha1:${'b'.repeat(40)}`,
    conditions: { ready: 'False', reason: 'HealthCheckFailed', message: 'timeout waiting for: [Deployment/apps/web status: InProgress]' },
    reconciling: true,
    stalled: { reason: 'BuildFailed' },
  });
  t.equal(failing.status?.lastAppliedRevision, `main@sha1:${'b'.repeat(40)}`);
  t.equal(failing.status?.lastAttemptedRevision, rev);
  t.match(cond(failing, 'Reconciling'), { status: 'True', reason: 'Progressing' });
  t.match(cond(failing, 'Stalled'), { status: 'True', reason: 'BuildFailed' });
  t.equal(kustomization({ name: 'x', inventory: null }).status?.inventory, undefined);
  t.end();
});

t.test('helmRelease: install vs upgrade, failures, history', (t) => {
  const installed = helmRelease({ namespace: 'apps', name: 'podinfo', chartVersion: '6.5.4' });
  t.match(cond(installed, 'Ready'), {
    status: 'True',
    reason: 'InstallSucceeded',
    message: 'Helm install succeeded for release apps/podinfo.v1 with chart podinfo@6.5.4',
  });
  t.match(cond(installed, 'Released'), { status: 'True', reason: 'InstallSucceeded' });
  const history = installed.status!.history as HistoryEntry[];
  t.equal(history.length, 1);
  t.match(history[0], { chartName: 'podinfo', chartVersion: '6.5.4', appVersion: '6.5.4', status: 'deployed', version: 1 });
  t.match(history[0]!.digest, /^sha256:[0-9a-f]{64}$/);

  const failed = helmRelease({
    namespace: 'apps',
    name: 'podinfo',
    generation: 2,
    chartVersion: '6.6.0',
    conditions: { ready: 'False', reason: 'UpgradeFailed', message: 'Helm upgrade failed: context deadline exceeded' },
    remediated: { ready: 'True', reason: 'RollbackSucceeded', message: 'Helm rollback to previous release apps/podinfo.v1 succeeded' },
    history: [
      { chartVersion: '6.6.0', status: 'failed' },
      { chartVersion: '6.5.4', status: 'superseded' },
    ],
  });
  t.equal(failed.status?.lastAttemptedReleaseAction, 'upgrade');
  t.match(cond(failed, 'Released'), { status: 'False', reason: 'UpgradeFailed' });
  t.match(cond(failed, 'Remediated'), { status: 'True', reason: 'RollbackSucceeded' });
  t.same(
    (failed.status!.history as HistoryEntry[]).map((h) => [h.version, h.status]),
    [
      [2, 'failed'],
      [1, 'superseded'],
    ],
  );
  t.end();
});

t.test('workloads: defaulted specs and rollout status', (t) => {
  const containers = [{ name: 'app', image: 'ghcr.io/acme/web:1.0.0' }];
  const dep = deployment({
    namespace: 'apps',
    name: 'web',
    containers,
    replicas: 3,
    annotations: { a: '1' },
    podAnnotations: { p: '2' },
    initContainers: [{ name: 'init', image: 'busybox' }],
  });
  const spec = dep.spec as DeploymentSpecView;
  t.same(spec.selector, { matchLabels: { 'app.kubernetes.io/name': 'web' } });
  t.equal(spec.template.metadata.annotations.p, '2');
  t.equal(spec.template.spec.initContainers[0]!.imagePullPolicy, 'Always', 'untagged image pulls Always');
  t.equal(spec.template.spec.containers[0]!.imagePullPolicy, 'IfNotPresent');
  t.equal(dep.metadata.annotations?.a, '1');
  t.match(dep.status, { replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
  t.match(cond(dep, 'Progressing'), { status: 'True', reason: 'NewReplicaSetAvailable' });
  t.match(cond(dep, 'Available'), { status: 'True', reason: 'MinimumReplicasAvailable' });

  const stuck = deployment({ namespace: 'apps', name: 'web', containers, rollout: 'failed', status: { readyReplicas: 0 } });
  t.match(cond(stuck, 'Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded' });
  t.equal(stuck.status?.readyReplicas, 0);

  t.equal(
    statefulSet({ namespace: 'db', name: 'pg', containers }).status?.currentRevision,
    statefulSet({ namespace: 'db', name: 'pg', containers }).status?.updateRevision,
  );
  t.equal(daemonSet({ namespace: 'kube-system', name: 'agent', containers }).status?.numberReady, 3);
  t.same(namespace('apps').metadata.labels, { 'kubernetes.io/metadata.name': 'apps' });
  t.end();
});
