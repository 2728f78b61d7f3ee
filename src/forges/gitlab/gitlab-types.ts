import type { Tier } from '../../metadata/ref-tier.js';

/** GitLab's objects as the bridge sends and reads them (API v4; test/fixtures/gitlab-openapi-deployments.json). */

/** The statuses an API client may set (`POST`/`PUT …/deployments`); GitLab has no `inactive`. */
export type GitLabStatus = 'running' | 'success' | 'failed' | 'canceled';

/** The create body: all five are required; `ref` is the branch (or tag, with `tag: true`), not the SHA. */
export interface NewDeployment {
  environment: string;
  sha: string;
  ref: string;
  tag: boolean;
  status: GitLabStatus;
}

/** The subset of a user the bridge reads (`GET /user`, a deployment's `user`). */
export interface GitLabUser {
  id: number;
  username: string;
}

export interface GitLabProject {
  id: number;
  path_with_namespace: string;
  default_branch: string | null;
}

/** The subset of a deployment the bridge reads. */
export interface GitLabDeployment {
  id: number;
  iid: number;
  ref: string;
  sha: string;
  /** Also `created`, `blocked`, `skipped` for deployments made by CI jobs. */
  status: string;
  user: GitLabUser | null;
  environment: { id: number; name: string } | null;
  created_at: string;
}

/** The subset of an environment the bridge reads. */
export interface GitLabEnvironment {
  id: number;
  name: string;
  external_url: string | null;
  tier: string | null;
  state: string;
  kubernetes_namespace?: string | null;
  flux_resource_path?: string | null;
  cluster_agent?: { id: number } | null;
  last_deployment?: GitLabDeployment | null;
}

/** What the bridge may change on an environment (one PUT, only the fields that differ). */
export interface EnvironmentChanges {
  external_url?: string;
  tier?: Tier;
  cluster_agent_id?: number;
  kubernetes_namespace?: string;
  flux_resource_path?: string;
}

export interface DeploymentFilter {
  environment: string;
  status: GitLabStatus;
}
