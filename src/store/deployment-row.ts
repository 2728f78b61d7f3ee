/**
 * A deployments row as the store hands it out: the types, the mapping from SQLite's columns, and the SQL
 * fragments that pick rows (one deployment's key, published rows, active states). The reads and writes are
 * `deployment-store.ts`.
 */
import { ACTIVE_STATES, type DeliveryState } from '../lifecycle/status-plan.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { Identity } from '../lifecycle/identity.js';
import type { ForgeName } from '../lifecycle/identity.js';

/** Where a deployment comes from: the Flux source, workload and container. */
export interface Origin {
  source: SourceRef;
  workload: { kind: string; namespace: string; name: string };
  container: string;
  image: string;
}

/** A cached deployment, its states in neutral words. `deploymentId` null: provisional (creation may or may not have reached the forge), or a forge without deployment ids. */
export interface DeploymentRow extends Identity {
  forge: ForgeName;
  deploymentId: number | null;
  /** The commit-status context, on a forge that reports by commit status; else null. */
  context: string | null;
  state: DeliveryState | null;
  /** A status being sent: set before the POST, cleared after; non-null after a crash mid-send. */
  pendingState: DeliveryState | null;
  description: string | null;
  origin: Origin;
  updatedAt: number;
}

/** A deployments row as SQLite returns it. */
export interface Raw {
  forge: ForgeName;
  context: string | null;
  owner: string;
  repo: string;
  environment: string;
  sha: string;
  deployment_name: string;
  spoke: string;
  deployment_id: number | null;
  state: DeliveryState | null;
  pending_state: DeliveryState | null;
  description: string | null;
  source_kind: SourceRef['kind'];
  source_namespace: string;
  source_name: string;
  workload_kind: string;
  workload_namespace: string;
  workload_name: string;
  container: string;
  image: string;
  updated_at: number;
}

/** One line of `countsByState`. */
export interface StateCount {
  forge: ForgeName;
  state: string;
  count: number;
}

/** The states a forge shows as live or unfinished, as an SQL list. */
export const ACTIVE_SQL = `(${ACTIVE_STATES.map((s) => `'${s}'`).join(', ')})`;

/** A deployment exists on its forge once its id is known, or (a forge without ids: a status context) from its first status. */
export const PUBLISHED = `(deployment_id IS NOT NULL OR context IS NOT NULL)`;

/** One deployment's row, by its identity (the parameters of `identityParams`). */
export const KEY = `forge = @forge AND owner = @owner AND repo = @repo AND environment = @environment AND sha = @sha AND deployment_name = @deploymentName AND spoke = @spoke`;

/** A row in the shape the rest of the bridge uses. */
export function toRow(r: Raw): DeploymentRow {
  return {
    forge: r.forge,
    context: r.context,
    owner: r.owner,
    repo: r.repo,
    environment: r.environment,
    sha: r.sha,
    deploymentName: r.deployment_name,
    ...(r.spoke ? { spoke: r.spoke } : {}),
    deploymentId: r.deployment_id,
    state: r.state,
    pendingState: r.pending_state,
    description: r.description,
    origin: {
      source: { kind: r.source_kind, namespace: r.source_namespace, name: r.source_name },
      workload: { kind: r.workload_kind, namespace: r.workload_namespace, name: r.workload_name },
      container: r.container,
      image: r.image,
    },
    updatedAt: r.updated_at,
  };
}

/** The named parameters of `KEY`. */
export const identityParams = (i: Identity) => ({
  forge: i.forge,
  owner: i.owner,
  repo: i.repo,
  environment: i.environment,
  sha: i.sha,
  deploymentName: i.deploymentName,
  spoke: i.spoke ?? '',
});
