/**
 * `npm run demo`: the real bridge process against a simulated cluster, GitHub, Forgejo and GitLab (and the
 * real docker-registry when Debian's package is installed). Plays two rollouts of acme/web on GitHub,
 * a pull-request preview of acme/shop on Forgejo and a merge-request preview of platform/shop on
 * GitLab with signed Flux events, then a hub's rollout to a spoke cluster (demo-fleet.ts), and prints what each forge ends up showing. `--serve` keeps everything running for `curl`.
 */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { commitOf } from '../test/harness/kube-meta.js';
import { deployment, kustomization, type ConditionSpec } from '../test/harness/flux-objects.js';
import { pushImage } from '../test/harness/push-image.js';
import { finishRollout } from '../test/harness/rollouts.js';
import type { StateDeployment } from '../test/harness/state-body.js';
import { startWorld, type World } from '../test/harness/world.js';
import { doraCommand, explainCommand } from './demo-explain.js';
import { playSpoke, printSpoke, startDemoSpoke, type DemoSpoke } from './demo-fleet.js';
import { DEMO_CLEANUP_GRACE, FORGEJO, OPT_IN, playPreview, printForgejo, say, validity } from './demo-forgejo.js';
import { GITLAB, playMergeRequest, printGitLab } from './demo-gitlab.js';

async function image(world: World, tag: string, sha: string): Promise<{ image: string; annotations: Record<string, string> }> {
  if (!world.registry) {
    // No registry here: the platform-owned annotations name repository and commit instead of OCI labels.
    return {
      image: `ghcr.io/acme/web:${tag}`,
      annotations: { ...OPT_IN, 'github-deployment-bridge.io/repository': 'acme/web', 'github-deployment-bridge.io/commit': sha },
    };
  }
  await pushImage(world.registry.url, 'acme/web', tag, {
    labels: {
      'org.opencontainers.image.source': 'https://github.com/acme/web',
      'org.opencontainers.image.revision': sha,
      'org.opencontainers.image.version': tag,
    },
  });
  return { image: `${world.registry.host}/acme/web:${tag}`, annotations: OPT_IN };
}

async function rollout(world: World, bridge: BridgeProcess, tag: string, generation: number): Promise<void> {
  const sha = commitOf(`demo-${tag}`);
  const { image: ref, annotations } = await image(world, tag, sha);
  say(`Flux applies acme/web ${tag} (commit ${sha.slice(0, 7)}): Kustomization flux-system/web is reconciling`);
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations,
      replicas: 2,
      rollout: 'progressing',
      containers: [{ name: 'web', image: ref }],
    }),
  );
  const inventory = [{ namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' }];
  const progressing: ConditionSpec = { ready: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress' };
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name: 'web',
      generation,
      observedGeneration: generation,
      conditions: progressing,
      inventory,
    }),
  );
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'Progressing', message: 'Deployment/apps/web configured' }));
  await bridge.waitFor('in_progress', () => latest(world, sha) === 'in_progress', 30_000);
  say('Health checks pass: Kustomization flux-system/web is Ready');
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name: 'web',
      generation,
      observedGeneration: generation,
      inventory,
      conditions: { ready: 'True', reason: 'ReconciliationSucceeded', message: `Applied revision: main@sha1:${sha}` },
    }),
  );
  await bridge.post(
    fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded', message: `Applied revision: main@sha1:${sha}` }),
  );
  await bridge.waitFor('held back', () => world.kube.requests.length > 0 && latest(world, sha) === 'in_progress', 30_000);
  say('Flux is done, but the new pods are still starting: GitHub keeps showing in_progress; then the rollout completes');
  finishRollout(world.kube, 'apps', 'web');
  await bridge.waitFor('success', () => latest(world, sha) === 'success', 60_000);
}

function latest(world: World, sha: string): string | undefined {
  return world.github
    .deployments('acme', 'web')
    .find((d) => d.sha === sha)
    ?.statuses.at(-1)?.state;
}

function printGitHub(world: World): void {
  say('What GitHub shows for acme/web (deployments, oldest first):');
  for (const d of world.github.deployments('acme', 'web')) {
    const trail = d.statuses.map((s) => (s.addedBy === 'github' ? `${s.state} (by GitHub)` : s.state)).join(' → ');
    process.stdout.write(`  #${d.id}  ${d.environment.padEnd(8)} ${d.sha.slice(0, 7)}  ${trail}\n`);
  }
  const writes = world.github.writes();
  process.stdout.write(
    `  GitHub writes: ${writes.length} (${writes.filter((w) => w.path.endsWith('/deployments')).length} creates, ${writes.filter((w) => w.path.endsWith('/statuses')).length} statuses); ${validity('GitHub', world.github.violations.length)}\n`,
  );
}

/** One /state row: GitHub and GitLab rows carry a deployment id, Forgejo rows a commit-status context. */
const stateLine = (d: StateDeployment) =>
  `  ${d.forge.padEnd(7)} ${d.owner}/${d.repo} ${d.environment} ${d.sha.slice(0, 7)} ${d.context == null ? `#${String(d.deploymentId)}` : `"${d.context}"`} ${d.state}\n`;

/** The demo proper: both forges' stories, what they show, and /state; under `--serve` it waits for `stop`. */
async function play(world: World, spoke: DemoSpoke, serve: boolean, stop: Promise<unknown>): Promise<void> {
  say(
    `Simulated cluster ${world.kube.url}, GitHub ${world.github.url}, Forgejo ${world.forgejo?.url ?? '(none)'}, GitLab ${world.gitlab?.url ?? '(none)'}${world.registry ? `, registry ${world.registry.host} (real docker-registry)` : ' (no docker-registry installed: using annotations)'}`,
  );
  const bridge = await world.bridge({ CLEANUP_GRACE: DEMO_CLEANUP_GRACE, ...spoke.env });
  say(`Bridge listening on ${bridge.url}`);
  await rollout(world, bridge, '1.0.0', 1);
  await rollout(world, bridge, '1.1.0', 2);
  await bridge.waitFor(
    '1.0.0 superseded',
    () => world.github.deployments('acme', 'web')[0]?.statuses.some((s) => s.state === 'inactive'),
    30_000,
  );
  printGitHub(world);
  if (world.github.violations.length > 0)
    throw new Error(`the bridge sent ${world.github.violations.length} request(s) GitHub's schema rejects`);
  await playPreview(world, bridge);
  printForgejo(world);
  await playMergeRequest(world, bridge);
  printGitLab(world);
  await playSpoke(world, bridge, spoke);
  await printSpoke(world, bridge);
  const state = await bridge.state();
  say(`GET ${bridge.url}/state → deployments:`);
  for (const d of state.deployments) process.stdout.write(stateLine(d));
  say(
    "Demo succeeded: two rollouts reported on GitHub, the older one superseded; a Forgejo preview reported with its route and ended when closed; a GitLab merge-request preview deployed from its branch, its environment linked and stopped when closed; a spoke's rollout reported from the hub under its own cluster; every request valid against GitHub's, Forgejo's and GitLab's API descriptions",
  );
  if (serve) {
    say(`Still running: try  curl ${bridge.url}/state  and  curl ${bridge.url}/metrics   (Ctrl-C or kill to stop)`);
    say('Ask the bridge why it reports what it does, from this folder:');
    process.stdout.write(`  ${explainCommand(world.env(), 'Kustomization/flux-system/web')}\n`);
    say('Its DORA keys for acme/web, from its database (staging counted; only production by default):');
    process.stdout.write(`  ${doraCommand(world.env(), 'acme/web', ['--environments', 'staging'])}\n`);
    say(`Its status page: ${bridge.url}/ in a browser`);
    await stop;
  }
}

/** How often the demo checks that whoever started it is still there. */
const PARENT_CHECK_MS = 500;

/**
 * The first SIGINT (Ctrl-C) or SIGTERM (`kill`), or the parent gone: from then on the demo only stops what
 * it started. The parent: `npm run demo` runs it under `sh -c`, and npm passes a SIGTERM on to that shell,
 * which dies without passing it on; the demo, now an orphan, sees it by its parent process id.
 */
function stopRequest(): Promise<NodeJS.Signals | 'parent gone'> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
    const parent = process.ppid;
    const timer = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(timer);
      resolve('parent gone');
    }, PARENT_CHECK_MS).unref();
  });
}

async function main(): Promise<number> {
  const serve = process.argv.includes('--serve');
  // Listening before anything starts: a signal while the world starts up still stops it once it is up.
  const stop = stopRequest();
  const world = await startWorld({ registry: existsSync('/usr/bin/docker-registry'), forgejo: FORGEJO, gitlab: GITLAB });
  const spoke = await startDemoSpoke(world);
  const run = play(world, spoke, serve, stop);
  // A signal mid-run: what the run still waits for fails once the world is gone; that is no error.
  run.catch(() => undefined);
  try {
    const stopped = await Promise.race([run.then(() => undefined), stop]);
    // Stopping a serving demo is how it ends (0); stopped mid-run, it did not succeed (128 + the signal's number).
    if (stopped === undefined || serve) return 0;
    return stopped === 'parent gone' ? 1 : 128 + constants.signals[stopped];
  } finally {
    // The bridge, docker-registry and the simulators stopped, the temp folders removed.
    await world.close();
    await spoke.kube.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
