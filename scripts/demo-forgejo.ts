/**
 * The Forgejo half of `npm run demo`: the preview of pull request 42 of acme/shop, reported as commit
 * statuses on the Forgejo simulator. Pending while Flux applies it, success with the route the bridge
 * discovers from the preview's Ingress, and, once the pull request is closed and Flux deletes the
 * preview, one last status that ends it.
 */
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { deployment, kustomization, type ConditionSpec, type InventoryRef } from '../test/harness/flux-objects.js';
import type { ForgejoSimulator, ForgejoSimulatorOptions, StoredStatus } from '../test/harness/forgejo-sim.js';
import { commitOf } from '../test/harness/kube-meta.js';
import { ingress, service } from '../test/harness/route-objects.js';
import type { World } from '../test/harness/world.js';

/** The annotation a platform team puts on a workload the bridge should report. */
export const OPT_IN = { 'github-deployment-bridge.io/auto-report': 'true' };

/** Prints one step of the demo, the line CI and the e2e test look for included. */
/** Whether every request the bridge sent passed the forge's API description (the simulators check each one). */
export const validity = (forge: string, refused: number) =>
  refused === 0 ? `every request valid against ${forge}'s API description` : `${refused} request(s) ${forge}'s API description refuses`;

export const say = (text: string) => process.stdout.write(`\n▶ ${text}\n`);

/** The commit the preview runs. */
export const PREVIEW_COMMIT = commitOf('demo-pr-42');
/** The simulated Forgejo: acme/shop exists and has the preview's commit. */
export const FORGEJO: ForgejoSimulatorOptions = { repos: ['acme/shop'], commits: { 'acme/shop': [PREVIEW_COMMIT] } };
/** How long the bridge waits before reporting a deleted preview as gone; short so the demo stays quick. */
export const DEMO_CLEANUP_GRACE = '2s';

const NS = 'apps';
const ENVIRONMENT = 'preview-pr-42';
const HOST = 'pr-42.preview.example.com';
const ROUTE = `https://${HOST}/`;
const KUSTOMIZATION_API = 'kustomize.toolkit.fluxcd.io/v1';
const GONE = 'Deployment gone: ';
const WAIT_MS = 30_000;
const INVENTORY = previewInventory(NS);

/** A preview's inventory: the Deployment `shop` in `namespace`, its Service and its Ingress. */
export function previewInventory(namespace: string): InventoryRef[] {
  return [
    { namespace, name: 'shop', group: 'apps', kind: 'Deployment' },
    { namespace, name: 'shop', group: '', kind: 'Service' },
    { namespace, name: 'shop', group: 'networking.k8s.io', kind: 'Ingress' },
  ];
}

/** Puts a preview's opted-in Deployment `shop` (running `image`, with the bridge's `annotations`), its Service and its TLS Ingress for `host`. */
export function putRoutedPreview(world: World, namespace: string, host: string, image: string, annotations: Record<string, string>): void {
  world.kube.put(
    deployment({ namespace, name: 'shop', annotations: { ...OPT_IN, ...annotations }, containers: [{ name: 'shop', image }] }),
  );
  world.kube.put(service({ namespace, name: 'shop' }));
  world.kube.put(ingress({ namespace, name: 'shop', host, path: '/', service: 'shop', tls: true }));
}

function forgejoOf(world: World): ForgejoSimulator {
  if (world.forgejo === undefined) throw new Error('the demo world was started without Forgejo');
  return world.forgejo;
}

const statuses = (world: World) => forgejoOf(world).statuses('acme', 'shop', PREVIEW_COMMIT);

function putPreviewSource(world: World, conditions: ConditionSpec): void {
  world.kube.put(
    kustomization({ namespace: 'flux-system', name: ENVIRONMENT, generation: 1, observedGeneration: 1, conditions, inventory: INVENTORY }),
  );
}

/** A Flux event for a preview's Kustomization (an event is only a trigger: the bridge reads the cluster). */
export async function previewEvent(bridge: BridgeProcess, name: string, reason: string, message: string): Promise<void> {
  await bridge.post(fluxEvent('Kustomization', 'flux-system', name, { reason, message }));
}

const event = (bridge: BridgeProcess, reason: string, message: string) => previewEvent(bridge, ENVIRONMENT, reason, message);

/** Plays the preview's whole life against the running bridge; resolves once Forgejo shows its end. */
export async function playPreview(world: World, bridge: BridgeProcess): Promise<void> {
  const sha = PREVIEW_COMMIT.slice(0, 7);
  say(
    `Pull request 42 of ${forgejoOf(world).url}/acme/shop (commit ${sha}): Flux applies its preview, Kustomization flux-system/${ENVIRONMENT}`,
  );
  putRoutedPreview(world, NS, HOST, `registry.invalid/acme/shop:${sha}`, {
    'github-deployment-bridge.io/repository': `${forgejoOf(world).url}/acme/shop`,
    'github-deployment-bridge.io/commit': PREVIEW_COMMIT,
    'github-deployment-bridge.io/environment': ENVIRONMENT,
  });
  putPreviewSource(world, { ready: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress' });
  await event(bridge, 'Progressing', 'Deployment/apps/shop created');
  await bridge.waitFor('Forgejo pending', () => statuses(world).at(-1)?.state === 'pending', WAIT_MS);

  say(`The preview is Ready: the bridge finds its Ingress and links ${ROUTE}`);
  const applied = `Applied revision: pull/42/head@sha1:${PREVIEW_COMMIT}`;
  putPreviewSource(world, { ready: 'True', reason: 'ReconciliationSucceeded', message: applied });
  await event(bridge, 'ReconciliationSucceeded', applied);
  await bridge.waitFor('Forgejo success', () => statuses(world).at(-1)?.state === 'success', WAIT_MS);

  say(`Pull request 42 is closed: Flux deletes the preview; after CLEANUP_GRACE (${DEMO_CLEANUP_GRACE}) the bridge ends its status`);
  world.kube.delete(KUSTOMIZATION_API, 'Kustomization', 'flux-system', ENVIRONMENT);
  world.kube.delete('apps/v1', 'Deployment', NS, 'shop');
  await event(bridge, 'ReconciliationSucceeded', 'Kustomization deleted');
  await bridge.waitFor('Forgejo gone', () => statuses(world).at(-1)?.description.startsWith(GONE), WAIT_MS);
}

/** Two lines per status: state, context and link, then the description below. */
const lines = (s: StoredStatus) =>
  `  ${s.state.padEnd(8)} ${s.context}  ${s.target_url === '' ? 'no link' : s.target_url}\n  ${' '.repeat(8)} "${s.description}"\n`;

/** What went wrong with the preview's statuses on Forgejo, or undefined when they tell its whole story. */
function problem(world: World, list: StoredStatus[]): string | undefined {
  const violations = forgejoOf(world).violations.length;
  if (violations > 0) return `the bridge sent ${violations} request(s) Forgejo's schema rejects`;
  const [pending, success, gone, ...extra] = list;
  if (pending?.state !== 'pending') return 'no pending status first';
  if (success?.state !== 'success' || success.target_url !== ROUTE) return `no success status linking ${ROUTE}`;
  if (gone?.state !== 'success' || !gone.description.startsWith(GONE) || gone.target_url !== '')
    return `no last status "${GONE}…" without a link`;
  if (extra.length > 0) return `${extra.length} status(es) more than pending, success and gone`;
  if (new Set(list.map((s) => s.context)).size !== 1) return 'the statuses do not share one context';
  return undefined;
}

/** Prints what Forgejo shows for the preview's commit; throws unless it is pending → success with the route → gone. */
export function printForgejo(world: World): void {
  const list = statuses(world);
  say(`What Forgejo shows for acme/shop commit ${PREVIEW_COMMIT.slice(0, 7)} (statuses, oldest first):`);
  for (const s of list) process.stdout.write(lines(s));
  process.stdout.write(
    `  Forgejo writes: ${forgejoOf(world).writes().length}; ${validity('Forgejo', forgejoOf(world).violations.length)}\n`,
  );
  const wrong = problem(world, list);
  if (wrong !== undefined) throw new Error(`Forgejo: ${wrong}`);
}
