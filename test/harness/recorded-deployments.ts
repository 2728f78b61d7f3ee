/** Deployments written through the store's own write path, for the tests of what is read back from it (DORA). */
import type { Identity } from '../../src/lifecycle/identity.js';
import type { DeploymentStore, Origin } from '../../src/store/deployment-store.js';

export const SHOP_ORIGIN: Origin = {
  source: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
  workload: { kind: 'Deployment', namespace: 'apps', name: 'shop' },
  container: 'shop',
  image: 'ghcr.io/acme/shop:1',
};

/** acme/shop's deployment of the commit `c` repeated (`a` → aaaa…), in production unless told otherwise. */
export const shopDeployment = (c: string, o: Partial<Identity> = {}): Identity => ({
  forge: 'github',
  owner: 'acme',
  repo: 'shop',
  environment: 'production',
  sha: c.repeat(40),
  deploymentName: 'shop',
  ...o,
});

/** A deployment first seen at `start` that then reaches each state at its time, as a publisher records them. */
export function record(
  store: DeploymentStore,
  who: Identity,
  start: number,
  ...steps: Array<[state: 'in_progress' | 'success' | 'failure' | 'gone', at: number]>
): void {
  store.insertProvisional(who, SHOP_ORIGIN, start);
  store.setDeploymentId(who, 1, null, start);
  for (const [state, at] of steps) store.setState(who, state, state, at);
}
