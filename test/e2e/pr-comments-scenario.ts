/** Shared set-up of the pull request comment end-to-end tests: the preview of pull request 12 and its Flux objects. */
import type { BridgeProcess } from '../harness/bridge-process.js';
import { fluxEvent } from '../harness/bridge-process.js';
import { kustomization, type ConditionSpec } from '../harness/flux-objects.js';
import { queueIdle } from '../harness/state-body.js';
import type { World } from '../harness/world.js';
import type { RequestHook } from '../harness/github-sim.js';
import { OPT_IN, putDeployment, sha } from './scenario.js';

export const COMMIT = sha('preview-12');
/** No comment window, fast cleanup and resync, GitHub writes unspaced. */
export const ENV = { PULL_REQUEST_COMMENT_WINDOW: '0', CLEANUP_GRACE: '1s', RESYNC_INTERVAL: '2s', GITHUB_WRITE_INTERVAL: '0' };

/** The preview of pull request 12: a Kustomization carrying Flux Operator's change_request, its workload annotated. */
export function putPreview(world: World, conditions: ConditionSpec): void {
  world.kube.put(
    kustomization({
      namespace: 'flux-system',
      name: 'web-pr-12',
      annotations: { 'event.toolkit.fluxcd.io/change_request': '12', 'event.toolkit.fluxcd.io/commit': COMMIT },
      conditions,
      inventory: [{ namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' }],
    }),
  );
}

/** Deployment apps/web of `repository` at COMMIT in environment pr-12, with its preview URL. */
export function putPreviewWorkload(world: World, repository: string): void {
  putDeployment(world, 'web', 'registry.invalid/acme/web:1.4.0', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': repository,
    'github-deployment-bridge.io/commit': COMMIT,
    'github-deployment-bridge.io/environment': 'pr-12',
    'github-deployment-bridge.io/environment-url': 'https://pr-12.preview.example.com/',
  });
}

export const event = (bridge: BridgeProcess) => bridge.post(fluxEvent('Kustomization', 'flux-system', 'web-pr-12'));

/** The bridge's /state once its queue is idle. */
export const idle = (bridge: BridgeProcess) =>
  bridge.waitFor('idle', async () => {
    const s = await bridge.state();
    return queueIdle(s) && s;
  });

/**
 * Kills `bridge` (SIGKILL) at the first request matching `at` on a simulator, the request's answer dropped, after
 * sending the preview's event; resolves once the process is gone.
 */
export async function crashAt(
  sim: { hook(hook: RequestHook): void },
  bridge: BridgeProcess,
  at: Pick<RequestHook, 'method' | 'path' | 'when'>,
): Promise<void> {
  let killed: Promise<unknown> | undefined;
  sim.hook({
    ...at,
    run: async () => {
      killed = bridge.kill('SIGKILL');
      await killed;
      return 'drop' as const;
    },
  });
  await event(bridge);
  await bridge.waitFor('the crash point', () => killed !== undefined);
  await killed;
}
