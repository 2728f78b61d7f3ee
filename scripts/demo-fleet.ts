/**
 * The fleet half of `npm run demo`: a hub with one spoke beside the local cluster. The simulated cluster is the hub:
 * its Flux applies acme/api to the spoke `eu-1` (a second fake API server) through Kustomization
 * flux-system/api-eu-1's `.spec.kubeConfig`, and the bridge reads the spoke with its own read-only kubeconfig
 * (CLUSTER_KUBECONFIG_DIR, the recommended way; docs/fleet.md). The hub holds a same-named decoy apps/api running
 * another commit, which is never reported for the spoke. Flux is Ready in the hub while the spoke's pods still
 * start: in progress, then success once the spoke says the rollout is done.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { kubeconfigText, startFakeKube, type FakeKube } from '../test/harness/fake-kube.js';
import { deployment, kustomization } from '../test/harness/flux-objects.js';
import { commitOf } from '../test/harness/kube-meta.js';
import { finishRollout } from '../test/harness/rollouts.js';
import type { World } from '../test/harness/world.js';
import { OPT_IN, say } from './demo-forgejo.js';

export const SPOKE = 'eu-1';
const SPOKE_TOKEN = 'eu-1-reader-token';
const COMMIT = commitOf('demo-api-eu-1');
const DECOY_COMMIT = commitOf('demo-api-hub-decoy');
const WAIT_MS = 30_000;

export interface DemoSpoke {
  kube: FakeKube;
  /** The bridge's environment for it: CLUSTER_KUBECONFIG_DIR with the spoke's kubeconfig file, named by the cluster. */
  env: Record<string, string>;
}

/** Starts the spoke's API server and writes its kubeconfig file; the caller closes `kube`. */
export async function startDemoSpoke(world: World): Promise<DemoSpoke> {
  const kube = await startFakeKube({ token: SPOKE_TOKEN });
  const dir = join(world.dir, 'clusters');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, SPOKE), kubeconfigText(kube.url, SPOKE_TOKEN), { mode: 0o600 });
  return { kube, env: { CLUSTER_KUBECONFIG_DIR: dir } };
}

const annotations = (commit: string) => ({
  ...OPT_IN,
  'github-deployment-bridge.io/repository': 'acme/api',
  'github-deployment-bridge.io/commit': commit,
});

const api = (commit: string, rollout: 'progressing' | 'complete') =>
  deployment({
    namespace: 'apps',
    name: 'api',
    annotations: annotations(commit),
    replicas: 2,
    rollout,
    containers: [{ name: 'api', image: `ghcr.io/acme/api:${commit.slice(0, 7)}` }],
  });

const latest = (world: World, sha: string) =>
  world.github
    .deployments('acme', 'api')
    .find((d) => d.sha === sha)
    ?.statuses.at(-1)?.state;

/** Plays the spoke's rollout of acme/api. */
export async function playSpoke(world: World, bridge: BridgeProcess, spoke: DemoSpoke): Promise<void> {
  say(
    `A hub with one spoke: Kustomization flux-system/api-eu-1 applies acme/api to cluster ${SPOKE} (${spoke.kube.url}) through .spec.kubeConfig; the bridge reads ${SPOKE} with its own read-only kubeconfig. The hub has its own apps/api (commit ${DECOY_COMMIT.slice(0, 7)}), never reported for ${SPOKE}`,
  );
  world.kube.put(api(DECOY_COMMIT, 'complete'));
  spoke.kube.put(api(COMMIT, 'progressing'));
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name: 'api-eu-1',
      annotations: { 'github-deployment-bridge.io/environment': 'production' },
      conditions: { ready: 'True', reason: 'ReconciliationSucceeded', message: `Applied revision: main@sha1:${COMMIT}` },
      inventory: [{ namespace: 'apps', name: 'api', group: 'apps', kind: 'Deployment' }],
      kubeConfig: { secretRef: { name: `${SPOKE}-kubeconfig` } },
    }),
  );
  await bridge.post(
    fluxEvent('Kustomization', 'flux-system', 'api-eu-1', {
      reason: 'ReconciliationSucceeded',
      message: `Applied revision: main@sha1:${COMMIT}`,
    }),
  );
  await bridge.waitFor('the spoke in progress', () => latest(world, COMMIT) === 'in_progress', WAIT_MS);
  say(`Flux is Ready in the hub, but ${SPOKE}'s pods are still starting: in_progress; then ${SPOKE} completes the rollout`);
  finishRollout(spoke.kube, 'apps', 'api');
  await bridge.waitFor('the spoke succeeded', () => latest(world, COMMIT) === 'success', WAIT_MS);
}

/** Prints what GitHub shows for acme/api, /state's clusters and the spoke's metrics; throws if the decoy was reported. */
export async function printSpoke(world: World, bridge: BridgeProcess): Promise<void> {
  say('What GitHub shows for acme/api (deployed to the spoke):');
  for (const d of world.github.deployments('acme', 'api')) {
    const cluster = (d.payload as { cluster?: string } | undefined)?.cluster ?? '?';
    process.stdout.write(
      `  #${d.id}  ${d.environment.padEnd(10)} ${d.sha.slice(0, 7)}  cluster ${cluster}  ${d.statuses.map((s) => s.state).join(' → ')}\n`,
    );
  }
  if (world.github.deployments('acme', 'api').some((d) => d.sha === DECOY_COMMIT))
    throw new Error("the hub's decoy apps/api was reported in the spoke's place");
  say(`GET ${bridge.url}/state → clusters:`);
  for (const c of (await bridge.state()).clusters ?? [])
    process.stdout.write(
      `  ${c.name.padEnd(12)} ${c.local ? 'local ' : 'remote'}  answers ${String(c.answers)}  credentials ${c.credentials ?? '—'}${c.reason ? `  (${c.reason})` : ''}\n`,
    );
  say(`GET ${bridge.url}/metrics → the spoke:`);
  for (const line of (await bridge.metrics()).split('\n'))
    if (line.startsWith('gdb_cluster_') && line.includes(`cluster="${SPOKE}"`)) process.stdout.write(`  ${line}\n`);
}
