/** What the Deployment controller does when a rollout ends, for tests and the demo. */
import type { FakeKube } from './fake-kube.js';

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
