/** GitHub's deployment and deployment-status objects as they travel on the wire, plus the simulator's view of them. */

export interface SimUser {
  login: string;
  id: number;
  node_id: string;
  type: string;
  site_admin: boolean;
}

/** A deployment as GitHub sends it. */
export interface Deployment {
  url: string;
  id: number;
  node_id: string;
  sha: string;
  ref: string;
  task: string;
  payload: Record<string, unknown>;
  original_environment: string;
  environment: string;
  description: string | null;
  creator: SimUser;
  created_at: string;
  updated_at: string;
  statuses_url: string;
  repository_url: string;
  transient_environment: boolean;
  production_environment: boolean;
  performed_via_github_app: null;
}

export type StatusStateName = 'error' | 'failure' | 'inactive' | 'in_progress' | 'queued' | 'pending' | 'success';

/** A deployment status as GitHub sends it. */
export interface DeploymentStatus {
  url: string;
  id: number;
  node_id: string;
  state: StatusStateName;
  creator: SimUser;
  description: string;
  environment: string;
  target_url: string;
  log_url: string;
  environment_url: string;
  created_at: string;
  updated_at: string;
  deployment_url: string;
  repository_url: string;
  performed_via_github_app: null;
}

/** A status as kept by the simulator: `addedBy: 'github'` marks the ones auto_inactive added. */
export type SimStatus = DeploymentStatus & { addedBy: 'client' | 'github' };

/** A deployment with all its statuses, oldest first. */
export type SimDeployment = Deployment & { statuses: SimStatus[] };
