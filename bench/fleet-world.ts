/**
 * The fleet benchmark's world: a hub (the world's fake API, holding every Flux object) and SPOKES fake API servers
 * in this process, each with its own token, holding the workloads of its remote Kustomizations; one kubeconfig file
 * per spoke in a directory for CLUSTER_KUBECONFIG_DIR. Beside them, in the hub, a local cluster of the same shape
 * as one spoke (same namespaces and workloads per namespace), to compare a spoke's cost with a local cluster's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { READY, sha } from '../test/e2e/scenario.js';
import { startFakeKube, type FakeKube } from '../test/harness/fake-kube.js';
import { deployment, kustomization } from '../test/harness/flux-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import type { World } from '../test/harness/world.js';
import { annotated } from './common.js';

/** One Flux object and its workloads; `spoke` is undefined for the hub's own (local) ones. */
export interface FleetSource {
  spoke: number | undefined;
  name: string;
  namespace: string;
  workloads: string[];
}

export interface Fleet {
  spokes: FakeKube[];
  sources: FleetSource[];
  kubeconfigDir: string;
}

export const clusterName = (i: number) => `spoke-${String(i).padStart(2, '0')}`;
export const repoOf = (cluster: string, ns: string, k: number) => `${cluster}-${ns}-${k}`;

/** A self-contained kubeconfig for a fake spoke (plain http, so insecure-skip-tls-verify, as the fake's own). */
function spokeKubeconfig(cluster: string, url: string, token: string): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{ name: ${q(cluster)}, cluster: { server: ${q(url)}, insecure-skip-tls-verify: true } }]`,
    `users: [{ name: reader, user: { token: ${q(token)} } }]`,
    `contexts: [{ name: ${q(cluster)}, context: { cluster: ${q(cluster)}, user: reader } }]`,
    `current-context: ${q(cluster)}`,
    '',
  ].join('\n');
}

/** Puts `perNamespace` finished, opted-in Deployments in each of `namespaces` of `kube`; one source each. */
function populate(kube: FakeKube, cluster: string, namespaces: number, perNamespace: number, spoke: number | undefined): FleetSource[] {
  const out: FleetSource[] = [];
  for (let n = 0; n < namespaces; n++) {
    const ns = `team-${n}`;
    const workloads = Array.from({ length: perNamespace }, (_, k) => repoOf(cluster, ns, k));
    for (const w of workloads) {
      kube.put(
        deployment({
          namespace: ns,
          name: w,
          annotations: annotated(w, sha(w)),
          containers: [{ name: 'app', image: `registry.invalid/acme/${w}:1` }],
        }),
      );
      finishRollout(kube, ns, w);
    }
    out.push({ spoke, name: `${cluster}-${ns}`, namespace: ns, workloads });
  }
  return out;
}

/** The hub's Kustomization of a source: remote ones name `<cluster>-kubeconfig`, as Cluster API's Secrets are named. */
export function putSource(hub: FakeKube, s: FleetSource): void {
  hub.put(
    kustomization({
      namespace: 'flux-system',
      name: s.name,
      conditions: READY,
      inventory: s.workloads.map((w) => ({ namespace: s.namespace, name: w, group: 'apps', kind: 'Deployment' })),
      ...(s.spoke !== undefined ? { kubeConfig: { secretRef: { name: `${clusterName(s.spoke)}-kubeconfig` } } } : {}),
    }),
  );
}

/** Starts the spokes, fills them and the hub's local cluster, writes the kubeconfigs; Flux objects not put yet. */
export async function startFleet(world: World, spokes: number, workloads: number, namespaces: number): Promise<Fleet> {
  const perNamespace = Math.max(1, Math.round(workloads / spokes / namespaces));
  const kubeconfigDir = join(world.dir, 'clusters');
  mkdirSync(kubeconfigDir);
  const servers: FakeKube[] = [];
  const sources: FleetSource[] = [];
  for (let i = 0; i < spokes; i++) {
    const token = `spoke-token-${i}`;
    const kube = await startFakeKube({ token, user: 'system:serviceaccount:github-deployment-bridge:github-deployment-bridge-reader' });
    servers.push(kube);
    writeFileSync(join(kubeconfigDir, clusterName(i)), spokeKubeconfig(clusterName(i), kube.url, token), { mode: 0o600 });
    sources.push(...populate(kube, clusterName(i), namespaces, perNamespace, i));
  }
  sources.push(...populate(world.kube, 'local', namespaces, perNamespace, undefined));
  return { spokes: servers, sources, kubeconfigDir };
}
