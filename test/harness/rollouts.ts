/** What the workload controllers do when a rollout ends, for tests, benchmarks and the demo. */
import type { FakeKube } from './fake-kube.js';
import { condition } from './kube-meta.js';

/** Marks a Deployment's rollout finished for its current generation: every replica updated and available. */
export function finishRollout(kube: FakeKube, namespace: string, name: string): void {
  const dep = kube.get('apps/v1', 'Deployment', namespace, name)!;
  const replicas = (dep.spec as { replicas: number }).replicas;
  kube.patchStatus('apps/v1', 'Deployment', namespace, name, {
    ...dep.status,
    observedGeneration: dep.metadata.generation,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    unavailableReplicas: 0,
  });
}

/** Marks a Deployment's rollout failed: the controller reports `Progressing=False`, `ProgressDeadlineExceeded`. */
export function failRollout(kube: FakeKube, namespace: string, name: string): void {
  const dep = kube.get('apps/v1', 'Deployment', namespace, name)!;
  const gen = dep.metadata.generation;
  const others = ((dep.status?.conditions ?? []) as Array<{ type: string }>).filter((c) => c.type !== 'Progressing');
  kube.patchStatus('apps/v1', 'Deployment', namespace, name, {
    observedGeneration: gen,
    conditions: [
      ...others,
      condition('Progressing', 'False', 'ProgressDeadlineExceeded', `ReplicaSet "${name}" has timed out progressing.`),
    ],
  });
}

/** Marks a StatefulSet's rolling update finished: every replica on the update revision and ready. */
export function finishStatefulSetRollout(kube: FakeKube, namespace: string, name: string): void {
  const sts = kube.get('apps/v1', 'StatefulSet', namespace, name)!;
  const replicas = (sts.spec as { replicas: number }).replicas;
  kube.patchStatus('apps/v1', 'StatefulSet', namespace, name, {
    observedGeneration: sts.metadata.generation,
    currentRevision: sts.status?.updateRevision,
    replicas,
    currentReplicas: replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
  });
}

/** Marks a DaemonSet's rollout finished: updated and available on every node it should run on. */
export function finishDaemonSetRollout(kube: FakeKube, namespace: string, name: string): void {
  const ds = kube.get('apps/v1', 'DaemonSet', namespace, name)!;
  const desired = ds.status?.desiredNumberScheduled as number;
  kube.patchStatus('apps/v1', 'DaemonSet', namespace, name, {
    observedGeneration: ds.metadata.generation,
    updatedNumberScheduled: desired,
    numberAvailable: desired,
    numberReady: desired,
  });
}
