/**
 * The simulator's memory: deployments and their statuses per repository, with GitHub's
 * own side effects (auto_inactive). Wire objects are built here, in GitHub's shape.
 */
import type { Deployment, DeploymentStatus, SimDeployment, SimStatus, SimUser, StatusStateName } from './wire-types.js';

export interface NewDeployment {
  ref: string;
  sha: string;
  task: string;
  environment: string;
  description: string | null;
  payload: Record<string, unknown>;
  production_environment: boolean;
  transient_environment: boolean;
}

export interface NewStatus {
  state: StatusStateName;
  description?: string;
  environment?: string;
  environment_url?: string;
  log_url?: string;
  target_url?: string;
  auto_inactive?: boolean;
}

/** The account GitHub itself writes as (auto_inactive statuses). */
const GITHUB_ACTOR: SimUser = {
  login: 'github',
  id: 9919,
  node_id: 'MDEyOk9yZ2FuaXphdGlvbjk5MTk=',
  type: 'Organization',
  site_admin: false,
};

interface Stored {
  repoKey: string;
  deployment: Deployment;
  statuses: SimStatus[];
}

/** GitHub's timestamps have whole seconds. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(`0:${id}`).toString('base64url')}`;
}

/** Case-insensitive repository key, as GitHub treats owner and name. */
export function repoKey(owner: string, repo: string): string {
  return `${owner}/${repo}`.toLowerCase();
}

export class SimState {
  private readonly byId = new Map<number, Stored>();
  private nextDeploymentId = 1000;
  private nextStatusId = 5000;

  constructor(private readonly apiBase: () => string) {}

  create(owner: string, repo: string, input: NewDeployment, creator: SimUser): Deployment {
    const id = ++this.nextDeploymentId;
    const at = now();
    const repoUrl = `${this.apiBase()}/repos/${owner}/${repo}`;
    const deployment: Deployment = {
      url: `${repoUrl}/deployments/${id}`,
      id,
      node_id: nodeId('DE', id),
      sha: input.sha,
      ref: input.ref,
      task: input.task,
      payload: input.payload,
      original_environment: input.environment,
      environment: input.environment,
      description: input.description,
      creator,
      created_at: at,
      updated_at: at,
      statuses_url: `${repoUrl}/deployments/${id}/statuses`,
      repository_url: repoUrl,
      transient_environment: input.transient_environment,
      production_environment: input.production_environment,
      performed_via_github_app: null,
    };
    this.byId.set(id, { repoKey: repoKey(owner, repo), deployment, statuses: [] });
    return structuredClone(deployment);
  }

  /** Deployments of a repository, newest first, filtered by exact match on the given fields. */
  list(owner: string, repo: string, filter: Partial<Record<'sha' | 'ref' | 'task' | 'environment', string>>): Deployment[] {
    return this.of(owner, repo)
      .filter((s) =>
        Object.entries(filter).every(
          ([k, v]: [string, string | undefined]) => v === undefined || s.deployment[k as keyof typeof filter] === v,
        ),
      )
      .reverse()
      .map((s) => structuredClone(s.deployment));
  }

  get(owner: string, repo: string, id: number): Deployment | undefined {
    const s = this.find(owner, repo, id);
    return s && structuredClone(s.deployment);
  }

  /** Statuses of a deployment, newest first; undefined when the deployment is not in this repository. */
  statuses(owner: string, repo: string, id: number): DeploymentStatus[] | undefined {
    const s = this.find(owner, repo, id);
    return s?.statuses.map(wire).reverse();
  }

  /** Adds a client status, then GitHub's auto_inactive statuses on sibling deployments. */
  addStatus(owner: string, repo: string, id: number, input: NewStatus, creator: SimUser): DeploymentStatus | undefined {
    const s = this.find(owner, repo, id);
    if (s === undefined) return undefined;
    const environment = input.environment ?? s.statuses.at(-1)?.environment ?? s.deployment.environment;
    s.deployment.environment = environment;
    const url = input.log_url ?? input.target_url ?? '';
    const status = this.push(
      s,
      { state: input.state, description: input.description ?? '', environment, environment_url: input.environment_url ?? '', url },
      creator,
      'client',
    );
    if (input.state === 'success' && input.auto_inactive !== false) {
      for (const other of this.byId.values()) {
        const d = other.deployment;
        if (other === s || other.repoKey !== s.repoKey || d.environment !== environment) continue;
        if (d.production_environment || d.transient_environment || other.statuses.at(-1)?.state !== 'success') continue;
        this.push(other, { state: 'inactive', description: '', environment, environment_url: '', url: '' }, GITHUB_ACTOR, 'github');
      }
    }
    return status;
  }

  /** GitHub refuses to delete an active deployment unless it is the only one in its environment. */
  remove(owner: string, repo: string, id: number): 'deleted' | 'missing' | 'active' {
    const s = this.find(owner, repo, id);
    if (s === undefined) return 'missing';
    const siblings = this.of(owner, repo).filter((o) => o.deployment.environment === s.deployment.environment);
    if (siblings.length > 1 && s.statuses.at(-1)?.state !== 'inactive') return 'active';
    this.byId.delete(id);
    return 'deleted';
  }

  /** Every deployment of a repository with its statuses, oldest first (for test assertions). */
  snapshot(owner: string, repo: string): SimDeployment[] {
    return this.of(owner, repo).map((s) => ({ ...structuredClone(s.deployment), statuses: structuredClone(s.statuses) }));
  }

  clear(): void {
    this.byId.clear();
  }

  private push(
    s: Stored,
    f: { state: StatusStateName; description: string; environment: string; environment_url: string; url: string },
    creator: SimUser,
    addedBy: SimStatus['addedBy'],
  ): DeploymentStatus {
    const id = ++this.nextStatusId;
    const at = now();
    const status: SimStatus = {
      url: `${s.deployment.url}/statuses/${id}`,
      id,
      node_id: nodeId('DES', id),
      state: f.state,
      creator,
      description: f.description,
      environment: f.environment,
      target_url: f.url,
      log_url: f.url,
      environment_url: f.environment_url,
      created_at: at,
      updated_at: at,
      deployment_url: s.deployment.url,
      repository_url: s.deployment.repository_url,
      performed_via_github_app: null,
      addedBy,
    };
    s.statuses.push(status);
    s.deployment.updated_at = at;
    return wire(status);
  }

  private find(owner: string, repo: string, id: number): Stored | undefined {
    const s = this.byId.get(id);
    return s !== undefined && s.repoKey === repoKey(owner, repo) ? s : undefined;
  }

  private of(owner: string, repo: string): Stored[] {
    const key = repoKey(owner, repo);
    return [...this.byId.values()].filter((s) => s.repoKey === key).sort((a, b) => a.deployment.id - b.deployment.id);
  }
}

function wire(s: SimStatus): DeploymentStatus {
  const status: DeploymentStatus & { addedBy?: SimStatus['addedBy'] } = structuredClone(s);
  delete status.addedBy;
  return status;
}
