/**
 * A hub and its spokes for fleet tests, the demo and benchmarks: each spoke is a fake API server of its own
 * with its own token; the hub (the world's fake API server) holds its kubeconfig Secret the way Cluster API
 * writes it (`flux-system/<cluster>-kubeconfig`, key `value`), and the remote Flux objects pointing at it.
 */
import { kubeconfigSecret } from './core-objects.js';
import { kubeconfigText, startFakeKube, type FakeKube } from './fake-kube.js';
import { deployment, helmRelease, kustomization, type ConditionSpec } from './flux-objects.js';
import { finishRollout } from './rollouts.js';

export interface Spoke {
  cluster: string;
  kube: FakeKube;
  token: string;
  /** The hub Secret holding its kubeconfig. */
  secretName: string;
}

/** The opt-in and metadata annotations of a workload reporting `repo` at `commit` (no registry needed). */
export const annotated = (repo: string, commit: string, extra: Record<string, string> = {}) => ({
  'github-deployment-bridge.io/auto-report': 'true',
  'github-deployment-bridge.io/repository': repo,
  'github-deployment-bridge.io/commit': commit,
  ...extra,
});

/** Starts a spoke and writes its kubeconfig Secret into `hub` (its token defaults to `<cluster>-token`). */
export async function startSpoke(hub: FakeKube, cluster: string, token = `${cluster}-token`): Promise<Spoke> {
  const kube = await startFakeKube({ token });
  const spoke = { cluster, kube, token, secretName: `${cluster}-kubeconfig` };
  putSpokeSecret(hub, spoke, token);
  return spoke;
}

/** (Re)writes the spoke's kubeconfig Secret in the hub with `token` (a rotation when it changes). */
export function putSpokeSecret(hub: FakeKube, spoke: Pick<Spoke, 'kube' | 'secretName'>, token: string): void {
  hub.put(kubeconfigSecret({ namespace: 'flux-system', name: spoke.secretName, text: kubeconfigText(spoke.kube.url, token) }));
}

/** An opted-in Deployment `apps/<name>` (or `<namespace>/<name>`) in `kube` reporting `repo` at `commit`, rolled out (unless `rolling`). */
export function putApp(
  kube: FakeKube,
  name: string,
  repo: string,
  commit: string,
  o: { annotations?: Record<string, string>; rolling?: boolean; namespace?: string } = {},
): void {
  const namespace = o.namespace ?? 'apps';
  kube.put(
    deployment({
      namespace,
      name,
      annotations: annotated(repo, commit, o.annotations),
      containers: [{ name: 'app', image: `registry.invalid/${repo}:${commit.slice(0, 7)}` }],
      ...(o.rolling ? { rollout: 'progressing' as const } : {}),
    }),
  );
  if (!o.rolling) finishRollout(kube, namespace, name);
}

const READY: ConditionSpec = { ready: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision: main@sha1:abc' };

/** A Kustomization `flux-system/<name>` in the hub applying Deployment apps/<app> (or `<namespace>/<app>`) to the spoke (its Secret). */
export function putRemoteKustomization(
  hub: FakeKube,
  name: string,
  app: string,
  o: {
    secretName?: string;
    configMap?: string;
    annotations?: Record<string, string>;
    generation?: number;
    conditions?: ConditionSpec;
    namespace?: string;
  },
): void {
  hub.put(
    kustomization({
      namespace: 'flux-system',
      name,
      generation: o.generation ?? 1,
      conditions: o.conditions ?? READY,
      ...(o.annotations ? { annotations: o.annotations } : {}),
      kubeConfig: o.configMap ? { configMapRef: { name: o.configMap } } : { secretRef: { name: o.secretName } },
      inventory: [{ namespace: o.namespace ?? 'apps', name: app, group: 'apps', kind: 'Deployment' }],
    }),
  );
}

/** A HelmRelease `flux-system/<name>` in the hub installing Deployment apps/<app> into the spoke. */
export function putRemoteHelmRelease(hub: FakeKube, name: string, app: string, secretName: string): void {
  hub.put(
    helmRelease({
      namespace: 'flux-system',
      name,
      targetNamespace: 'apps',
      conditions: { ready: 'True', reason: 'UpgradeSucceeded', message: 'Helm upgrade succeeded' },
      kubeConfig: { secretRef: { name: secretName } },
      inventory: [{ namespace: 'apps', name: app, group: 'apps', kind: 'Deployment' }],
    }),
  );
}
