/** Inputs of the pure reconcile and cleanup plans, built small: resolved workloads and cached deployment rows. */
import type { Phase } from '../../src/flux/phase.js';
import type { Rollout } from '../../src/lifecycle/rollout.js';
import { resolveTarget } from '../../src/metadata/resolve-target.js';
import type { Candidate, ResolvedSource, ResolvedWorkload } from '../../src/reconcile/resolve-source.js';
import type { DeploymentRow } from '../../src/store/deployment-store.js';
import type { DeliveryState } from '../../src/lifecycle/status-plan.js';
import { commitOf } from '../harness/kube-meta.js';

export const REF = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'apps' };
export const T0 = Date.UTC(2025, 5, 1, 12);
export const GRACE_MS = 15_000;

export const phase = (kind: Phase['kind'], reason = 'ReconciliationSucceeded', message = 'Applied revision: main@sha1:0123abc'): Phase => ({
  kind,
  reason,
  message,
});

export const ROLLOUT: Record<Rollout['state'], Rollout> = {
  complete: { state: 'complete', description: 'rollout complete: 1 replica available' },
  progressing: { state: 'progressing', description: '0/1 replicas updated' },
  paused: { state: 'paused', description: 'paused: 0/1 replicas updated' },
  failed: { state: 'failed', description: 'progress deadline exceeded' },
};

/** The deployment target of Deployment apps/<name> in github.com/acme/<repo>. */
export function candidate(name: string, repo = name): Candidate {
  const image = `ghcr.io/acme/${repo}:1.0.0`;
  const workload = { kind: 'Deployment', namespace: 'apps', name };
  const r = resolveTarget(
    REF,
    { ...workload, annotations: {}, containers: [{ name: 'app', image }] },
    { name: 'app', image },
    {
      labels: { 'org.opencontainers.image.source': `https://github.com/acme/${repo}`, 'org.opencontainers.image.revision': commitOf(repo) },
    },
    {
      cluster: 'test',
      environment: 'staging',
      description: 'Flux',
      forges: [{ forge: 'github', host: 'github.com' }],
      controllerVersion: '0.0.0',
    },
  );
  if (!('target' in r)) throw new Error(r.skip);
  return { target: r.target, origin: { source: REF, workload, container: 'app', image } };
}

/** An opted-in Deployment apps/<name> and what it resolved to. */
export function workload(name: string, rollout: Rollout['state'] = 'complete', candidates = [candidate(name)]): ResolvedWorkload {
  return { key: `Deployment/apps/${name}`, optedIn: true, rollout: ROLLOUT[rollout], candidates, skips: [] };
}

/** A source's inventory resolved: the workloads, all present unless named missing. */
export function resolved(workloads: ResolvedWorkload[], o: Partial<ResolvedSource> = {}): ResolvedSource {
  return {
    workloads,
    present: new Set(workloads.map((w) => w.key)),
    missing: new Set(),
    namespacesGone: new Set(),
    skips: [],
    retry: [],
    ...o,
  };
}

/** A cached deployment of Deployment apps/<name> at `sha`. */
export function row(name: string, sha = commitOf(name), state: DeliveryState = 'success'): DeploymentRow {
  return {
    forge: 'github',
    owner: 'acme',
    repo: name,
    environment: 'staging',
    sha,
    deploymentName: name,
    deploymentId: 1,
    context: null,
    state,
    pendingState: null,
    description: null,
    origin: {
      source: REF,
      workload: { kind: 'Deployment', namespace: 'apps', name },
      container: 'app',
      image: `ghcr.io/acme/${name}:1.0.0`,
    },
    updatedAt: T0,
  };
}
