/** Shared set-up of the end-to-end tests: an app image in the real registry and its Flux objects. */
import type { BridgeProcess } from '../harness/bridge-process.js';
import { commitOf } from '../harness/kube-meta.js';
import { deployment, kustomization, type ConditionSpec, type InventoryRef } from '../harness/flux-objects.js';
import { pushImage } from '../harness/push-image.js';
import { finishRollout as finishDeploymentRollout } from '../harness/rollouts.js';
import { queueIdle, type StateBody } from '../harness/state-body.js';
import type { World } from '../harness/world.js';

export const OPT_IN = { 'github-deployment-bridge.io/auto-report': 'true' };

export const READY: ConditionSpec = {
  ready: 'True',
  reason: 'ReconciliationSucceeded',
  message: 'Applied revision: main@sha1:07a684d59d1bc9a58e0c0d07ed480812b2b9a29e',
};
export const PROGRESSING: ConditionSpec = { ready: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress' };
export const HEALTH_FAILED: ConditionSpec = {
  ready: 'False',
  reason: 'HealthCheckFailed',
  message: 'health check failed after 5m0s: timeout waiting for: [Deployment/apps/web status: InProgress]',
};

/** Pushes `acme/<app>:<tag>` with OCI labels naming github.com/acme/<app> at commit `sha`; returns the image reference. */
export async function pushAppImage(
  world: World,
  app: string,
  tag: string,
  sha: string,
  extraLabels: Record<string, string> = {},
): Promise<string> {
  const registry = world.registry!;
  await pushImage(registry.url, `acme/${app}`, tag, {
    labels: {
      'org.opencontainers.image.source': `https://github.com/acme/${app}`,
      'org.opencontainers.image.revision': sha,
      'org.opencontainers.image.version': tag,
      ...extraLabels,
    },
  });
  return `${registry.host}/acme/${app}:${tag}`;
}

export const sha = (seed: string) => commitOf(seed);

/** Puts a Kustomization `apps/<name>` whose inventory is the given Deployments (then `extra`), with the given Ready state. */
export function putKustomization(
  world: World,
  name: string,
  workloads: string[],
  conditions: ConditionSpec,
  generation = 1,
  extra: InventoryRef[] = [],
): void {
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name,
      generation,
      observedGeneration: generation,
      conditions,
      inventory: [
        { namespace: '', name: 'apps', group: '', kind: 'Namespace' },
        ...workloads.map((w) => ({ namespace: 'apps', name: w, group: 'apps', kind: 'Deployment' })),
        ...extra,
      ],
    }),
  );
}

/** Puts an opted-in Deployment `apps/<name>` running `image`, its rollout finished. */
export function putDeployment(world: World, name: string, image: string, annotations: Record<string, string> = OPT_IN): void {
  world.kube.put(deployment({ namespace: 'apps', name, annotations, containers: [{ name: 'app', image }] }));
  finishRollout(world, name);
}

/** The opt-in and metadata annotations of a workload reporting `repository` (`owner/name`) at `commit`. */
export const annotated = (repository: string, commit: string) => ({
  ...OPT_IN,
  'github-deployment-bridge.io/repository': repository,
  'github-deployment-bridge.io/commit': commit,
});

/** The states of a simulated deployment's statuses that the bridge (the client) wrote, oldest first; none for no deployment. */
export const clientStates = (d: { statuses: Array<{ state: string; addedBy: string }> } | undefined) =>
  (d?.statuses ?? []).filter((s) => s.addedBy === 'client').map((s) => s.state);

/** Marks a Deployment `apps/<name>` rolled out for its current generation. */
export function finishRollout(world: World, name: string): void {
  finishDeploymentRollout(world.kube, 'apps', name);
}

/** The bridge's /state once it has seen a source and its queue is idle; false before (a `waitFor` check). */
export async function idle(bridge: BridgeProcess): Promise<StateBody | false> {
  const s = await bridge.state();
  return s.fluxObjects.length > 0 && queueIdle(s) && s;
}
