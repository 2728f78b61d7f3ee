import type { Turn } from './write-budget.js';

/** The subset of a GitHub deployment the bridge reads back. */
export interface GhDeployment {
  id: number;
  sha: string;
  ref: string;
  task: string;
  environment: string;
  payload: Record<string, unknown> | string;
  created_at: string;
}

export type StatusState = 'queued' | 'in_progress' | 'success' | 'failure' | 'error' | 'inactive';

export interface GhStatus {
  id: number;
  state: StatusState | 'pending';
  created_at: string;
}

export interface CreateDeploymentBody {
  ref: string;
  task?: string;
  environment: string;
  description: string;
  auto_merge: false;
  required_contexts: string[];
  payload: Record<string, unknown>;
  production_environment: boolean;
  transient_environment: boolean;
}

export interface CreateStatusBody {
  state: StatusState;
  description?: string;
  environment_url?: string;
  log_url?: string;
  auto_inactive?: boolean;
}

export interface RepoRef {
  owner: string;
  repo: string;
}

/** A GraphQL answer: its data (partial when some fields failed), its errors, what it cost and when GraphQL's budget resets. */
export interface GraphQLAnswer {
  data?: unknown;
  errors?: Array<{ type?: string; message: string; path?: ReadonlyArray<string | number> }>;
  /** `rateLimit { cost }`, when the query asked for it and it was answered. */
  cost?: number;
  /** When GraphQL's hourly budget resets (epoch ms), from the answer's headers. */
  resetAt?: number;
}

/**
 * The GitHub deployment endpoints the bridge uses; octokit behind it in production, the simulator in tests.
 * `turn`: whose request it is and what it is worth, for the write budget (see forges/write-budget.ts).
 */
export interface DeploymentsPort {
  listDeployments(repo: RepoRef, query: { sha: string; environment: string; task?: string }, turn?: Turn): Promise<GhDeployment[]>;
  createDeployment(repo: RepoRef, body: CreateDeploymentBody, turn?: Turn): Promise<GhDeployment>;
  listStatuses(repo: RepoRef, deploymentId: number, turn?: Turn): Promise<GhStatus[]>;
  createStatus(repo: RepoRef, deploymentId: number, body: CreateStatusBody, turn?: Turn): Promise<void>;
  /** One GraphQL query (the batched find before creates) with the credentials of `repo`; absent: look-ups stay REST. */
  queryDeployments?(repo: RepoRef, request: { query: string; variables: Record<string, unknown> }): Promise<GraphQLAnswer>;
}
