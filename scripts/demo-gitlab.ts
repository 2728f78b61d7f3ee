/**
 * The GitLab half of `npm run demo`: the preview of merge request 7 of platform/shop, as Flux
 * Operator makes one (its Kustomization names the branch in `event.toolkit.fluxcd.io/branch`),
 * reported as a GitLab deployment to the environment `review/mr-7`: running while Flux applies it,
 * success with the route the bridge discovers from its Ingress and the branch as `ref`, and, once the
 * merge request is closed and Flux deletes the preview, the environment stopped.
 */
import type { BridgeProcess } from '../test/harness/bridge-process.js';
import { kustomization, type ConditionSpec } from '../test/harness/flux-objects.js';
import type { GitLabSimulator, GitLabSimulatorOptions } from '../test/harness/gitlab-sim.js';
import { commitOf } from '../test/harness/kube-meta.js';
import type { World } from '../test/harness/world.js';
import { previewEvent, previewInventory, putRoutedPreview, say, validity } from './demo-forgejo.js';

const PROJECT = 'platform/shop';
const BRANCH = 'feature/login';
/** The commit the merge request's preview runs. */
export const MR_COMMIT = commitOf('demo-mr-7');
/**
 * The simulated GitLab: platform/shop, its default branch main, the merge request's branch holding the
 * commit; on a loopback address of its own, since the Forgejo simulator has 127.0.0.1 (forges are told apart by host).
 */
export const GITLAB: GitLabSimulatorOptions = {
  host: '127.0.0.2',
  projects: [{ path: PROJECT, defaultBranch: 'main', branches: { main: [], [BRANCH]: [MR_COMMIT] } }],
};

const NS = 'review';
const SOURCE = 'preview-mr-7';
const ENVIRONMENT = 'review/mr-7';
const HOST = 'mr-7.review.example.com';
const ROUTE = `https://${HOST}/`;
const WAIT_MS = 30_000;
const INVENTORY = previewInventory(NS);

function gitlabOf(world: World): GitLabSimulator {
  if (world.gitlab === undefined) throw new Error('the demo world was started without GitLab');
  return world.gitlab;
}

const shop = (world: World) => gitlabOf(world).project(PROJECT);
const environment = (world: World) => shop(world)?.environments.find((e) => e.name === ENVIRONMENT);

function putSource(world: World, conditions: ConditionSpec): void {
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name: SOURCE,
      annotations: { 'event.toolkit.fluxcd.io/branch': BRANCH },
      conditions,
      inventory: INVENTORY,
    }),
  );
}

/** Plays the merge request's preview against the running bridge; resolves once GitLab shows its environment stopped. */
export async function playMergeRequest(world: World, bridge: BridgeProcess): Promise<void> {
  const sha = MR_COMMIT.slice(0, 7);
  say(
    `Merge request 7 of ${gitlabOf(world).url}/${PROJECT} (branch ${BRANCH}, commit ${sha}): Flux applies its preview, Kustomization flux-system/${SOURCE}`,
  );
  putRoutedPreview(world, NS, HOST, `registry.invalid/platform/shop:${sha}`, {
    'github-deployment-bridge.io/repository': `${gitlabOf(world).url}/${PROJECT}`,
    'github-deployment-bridge.io/commit': MR_COMMIT,
    'github-deployment-bridge.io/environment': ENVIRONMENT,
    'github-deployment-bridge.io/transient': 'true',
  });
  putSource(world, { ready: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress' });
  await previewEvent(bridge, SOURCE, 'Progressing', 'Deployment/review/shop created');
  await bridge.waitFor('GitLab running', () => shop(world)?.deployments.at(-1)?.status === 'running', WAIT_MS);

  say(`The preview is Ready: GitLab's deployment succeeds, ref ${BRANCH}, the environment links ${ROUTE}`);
  const applied = `Applied revision: ${BRANCH}@sha1:${MR_COMMIT}`;
  putSource(world, { ready: 'True', reason: 'ReconciliationSucceeded', message: applied });
  await previewEvent(bridge, SOURCE, 'ReconciliationSucceeded', applied);
  await bridge.waitFor(
    'GitLab success',
    () => shop(world)?.deployments.at(-1)?.status === 'success' && environment(world)?.external_url === ROUTE,
    WAIT_MS,
  );

  say('Merge request 7 is closed: Flux deletes the preview; after CLEANUP_GRACE the bridge stops its GitLab environment');
  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', SOURCE);
  world.kube.delete('apps/v1', 'Deployment', NS, 'shop');
  await previewEvent(bridge, SOURCE, 'ReconciliationSucceeded', 'Kustomization deleted');
  await bridge.waitFor('GitLab environment stopped', () => environment(world)?.state === 'stopped', WAIT_MS);
}

/** Prints what GitLab shows for the merge request; throws unless it is one success deployment on the branch, the environment linked and stopped. */
export function printGitLab(world: World): void {
  const p = shop(world);
  const e = environment(world);
  say(`What GitLab shows for ${PROJECT} (deployments, oldest first, and the environment):`);
  for (const d of p?.deployments ?? [])
    process.stdout.write(`  #${d.iid}  ${ENVIRONMENT}  ${d.sha.slice(0, 7)}  ref ${d.ref}  ${d.status}\n`);
  process.stdout.write(`  environment ${e?.name ?? '(none)'}  ${e?.tier ?? ''}  ${e?.external_url ?? 'no URL'}  ${e?.state ?? ''}\n`);
  const gitlab = gitlabOf(world);
  process.stdout.write(`  GitLab writes: ${gitlab.writes().length}; ${validity('GitLab', gitlab.violations.length)}\n`);
  const [only, ...extra] = p?.deployments ?? [];
  if (gitlab.violations.length > 0)
    throw new Error(`GitLab: the bridge sent ${gitlab.violations.length} request(s) GitLab's API description rejects`);
  if (only?.status !== 'success' || only.ref !== BRANCH || extra.length > 0)
    throw new Error(`GitLab: not one success deployment with ref ${BRANCH}`);
  if (e?.external_url !== ROUTE || e.state !== 'stopped') throw new Error(`GitLab: the environment is not linked to ${ROUTE} and stopped`);
}
