/**
 * What the bridge sets on a GitLab environment, and when it stops one. GitLab creates the environment
 * on the first deployment and cannot learn from an API deployment its URL, its tier, or which Flux
 * object runs it; the bridge sets those with one PUT, only when they differ. A transient environment
 * (a preview) is stopped when the last workload the bridge reports into it is gone, unless its latest
 * deployment is not one this bridge made (another cluster or a CI job moved in). Pure.
 */
import type { Tier } from '../../metadata/ref-tier.js';
import type { EnvironmentChanges, GitLabEnvironment } from './gitlab-types.js';

/** GitLab's Kubernetes dashboard link: the agent, the namespace and the Flux object. */
export interface AgentLink {
  clusterAgentId: number;
  namespace: string;
  fluxResourcePath: string;
}

export interface WantedEnvironment {
  /** The environment URL, or the discovered preview route. */
  externalUrl?: string | undefined;
  /** Left undefined, GitLab's own guess from the name stays. */
  tier?: Tier | undefined;
  /** With `GITLAB_AGENT_ID` set. */
  agent?: AgentLink | undefined;
}

/** The API group, version and plural GitLab's `flux_resource_path` names a Flux object by. */
const FLUX_RESOURCE: Record<'Kustomization' | 'HelmRelease', string> = {
  Kustomization: 'kustomize.toolkit.fluxcd.io/v1',
  HelmRelease: 'helm.toolkit.fluxcd.io/v2',
};

/** `kustomize.toolkit.fluxcd.io/v1/namespaces/<ns>/kustomizations/<name>` (or the HelmRelease form). */
export function fluxResourcePath(kind: 'Kustomization' | 'HelmRelease', namespace: string, name: string): string {
  return `${FLUX_RESOURCE[kind]}/namespaces/${namespace}/${kind.toLowerCase()}s/${name}`;
}

/** What the environment should say for a target: its URL, its tier, and with an agent id the Kubernetes link to its Flux object. */
export function wantedEnvironment(
  target: { environmentUrl?: string | undefined; tier?: Tier | undefined },
  origin: { source: { kind: 'Kustomization' | 'HelmRelease'; namespace: string; name: string }; workload: { namespace: string } },
  agentId: number | undefined,
): WantedEnvironment {
  return {
    ...(target.environmentUrl === undefined ? {} : { externalUrl: target.environmentUrl }),
    ...(target.tier === undefined ? {} : { tier: target.tier }),
    ...(agentId === undefined
      ? {}
      : {
          agent: {
            clusterAgentId: agentId,
            namespace: origin.workload.namespace,
            fluxResourcePath: fluxResourcePath(origin.source.kind, origin.source.namespace, origin.source.name),
          },
        }),
  };
}

/** The one PUT body that makes the environment say what is wanted; undefined when it already does. */
export function environmentChanges(current: GitLabEnvironment, wanted: WantedEnvironment): EnvironmentChanges | undefined {
  const changes: EnvironmentChanges = {};
  if (wanted.externalUrl !== undefined && wanted.externalUrl !== (current.external_url ?? undefined))
    changes.external_url = wanted.externalUrl;
  if (wanted.tier !== undefined && wanted.tier !== current.tier) changes.tier = wanted.tier;
  const a = wanted.agent;
  if (a !== undefined) {
    if (a.clusterAgentId !== current.cluster_agent?.id) changes.cluster_agent_id = a.clusterAgentId;
    if (a.namespace !== current.kubernetes_namespace) changes.kubernetes_namespace = a.namespace;
    if (a.fluxResourcePath !== current.flux_resource_path) changes.flux_resource_path = a.fluxResourcePath;
  }
  return Object.keys(changes).length === 0 ? undefined : changes;
}

export interface StopInputs {
  transient: boolean;
  /** Workloads the bridge still reports into this environment (after `CLEANUP_GRACE`). */
  workloadsLeft: number;
  environment: GitLabEnvironment;
  /** Deployment ids this bridge's rows hold (this cluster's): the same token user elsewhere is not this bridge. */
  ownDeployments: ReadonlySet<number>;
}

/** Why an environment found stopped (or stopping) is left alone. */
export const ALREADY_STOPPED = 'already stopped';

/** Whether to stop the environment now, or why not. */
export function stopDecision(i: StopInputs): 'stop' | { leave: string } {
  if (!i.transient) return { leave: 'not a transient environment: it keeps its history' };
  if (i.workloadsLeft > 0) return { leave: `${i.workloadsLeft} workload(s) still report into it` };
  if (i.environment.state === 'stopped' || i.environment.state === 'stopping') return { leave: ALREADY_STOPPED };
  const latest = i.environment.last_deployment;
  if (latest != null && !i.ownDeployments.has(latest.id))
    return { leave: `its latest deployment (${latest.id}) is not this bridge's: another cluster or a CI job deployed there` };
  return 'stop';
}
