/**
 * The simulator's memory: projects (by numeric id and by case-insensitive full path), their
 * environments (created on demand by a deployment, as `find_or_create_by_name` does) and
 * deployments (a global id, an iid per project), with the timestamps GitLab keeps.
 */

/** A project as a test describes it. */
export interface SimProject {
  /** Full path with nested groups, e.g. `platform/team/app`. */
  path: string;
  /** Default `main`. */
  defaultBranch?: string;
  /** Branch → the commits it holds. When omitted the default branch holds every 40-hex SHA. */
  branches?: Record<string, string[]>;
  /** Tag → its commit. */
  tags?: Record<string, string>;
  /** Users with the Reporter role only: they read the project, a write answers 403. */
  reporters?: string[];
  /** Agents for Kubernetes whose `user_access` covers the project (their ids); when omitted any id is accepted. */
  agents?: number[];
  /** Users who may see the project at all (others get 404, GitLab's answer for a private project); default everyone. */
  members?: string[];
}

export interface StoredEnvironment {
  id: number;
  name: string;
  slug: string;
  external_url: string | null;
  tier: string;
  state: 'available' | 'stopping' | 'stopped';
  kubernetes_namespace: string | null;
  flux_resource_path: string | null;
  cluster_agent_id: number | null;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface StoredDeployment {
  id: number;
  iid: number;
  environmentId: number;
  ref: string;
  sha: string;
  tag: boolean;
  status: string;
  /** The token's user that created it. */
  user: string;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface ProjectState {
  id: number;
  facts: SimProject;
  environments: StoredEnvironment[];
  deployments: StoredDeployment[];
}

/** GitLab's `Environment#guess_tier`: the tier a new environment gets from its name. */
export function guessTier(name: string): string {
  if (/(dev|review|trunk)/i.test(name)) return 'development';
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return 'testing';
  if (/(st(a|)g|mod(e|)l|pre|demo|non)/i.test(name)) return 'staging';
  if (/(pr(o|)d|live)/i.test(name)) return 'production';
  return 'other';
}

/** A slug like GitLab's: lower case, non-alphanumerics as `-`, at most 24 characters; a suffix when the name had to change. */
function slugOf(name: string, id: number): string {
  const plain = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24);
  return plain === name ? plain : `${plain.slice(0, 17) || 'env'}-${id.toString(36).padStart(6, '0')}`;
}

/** GitLab's environment name rule (`Gitlab::Regex.environment_name_regex`). */
export const ENVIRONMENT_NAME = /^[a-zA-Z0-9_\\/${}. -]+$/;

export class GitLabBook {
  private readonly byPath = new Map<string, ProjectState>();
  private nextProject = 1;
  private nextEnvironment = 1;
  private nextDeployment = 1;

  constructor(
    private readonly projects: SimProject[] | undefined,
    readonly now: () => number,
    /** Without `projects`: the top-level groups whose every project path exists. */
    private readonly groups: readonly string[] = [],
  ) {
    for (const p of projects ?? []) this.add(p);
  }

  private add(facts: SimProject): ProjectState {
    const state: ProjectState = { id: this.nextProject++, facts, environments: [], deployments: [] };
    this.byPath.set(facts.path.toLowerCase(), state);
    return state;
  }

  /** A project by numeric id or full path; with no projects configured, every path below one of `groups` exists. */
  project(idOrPath: string): ProjectState | undefined {
    if (/^\d+$/.test(idOrPath)) return [...this.byPath.values()].find((p) => String(p.id) === idOrPath);
    const found = this.byPath.get(idOrPath.toLowerCase());
    const group = idOrPath.split('/')[0]?.toLowerCase() ?? '';
    if (found !== undefined || this.projects !== undefined || !idOrPath.includes('/') || !this.groups.includes(group)) return found;
    return this.add({ path: idOrPath });
  }

  environmentByName(p: ProjectState, name: string): StoredEnvironment | undefined {
    return p.environments.find((e) => e.name === name);
  }

  /** `find_or_create_by_name`: the environment a deployment names, created (available, tier guessed) when new. */
  findOrCreateEnvironment(p: ProjectState, name: string): StoredEnvironment {
    const found = this.environmentByName(p, name);
    if (found !== undefined) return found;
    const id = this.nextEnvironment++;
    const at = this.now();
    const env: StoredEnvironment = {
      id,
      name,
      slug: slugOf(name, id),
      external_url: null,
      tier: guessTier(name),
      state: 'available',
      kubernetes_namespace: null,
      flux_resource_path: null,
      cluster_agent_id: null,
      description: null,
      createdAt: at,
      updatedAt: at,
    };
    p.environments.push(env);
    return env;
  }

  addDeployment(p: ProjectState, d: Omit<StoredDeployment, 'id' | 'iid' | 'createdAt' | 'updatedAt' | 'finishedAt'>): StoredDeployment {
    const at = this.now();
    const stored: StoredDeployment = {
      ...d,
      id: this.nextDeployment++,
      iid: p.deployments.length + 1,
      createdAt: at,
      updatedAt: at,
      finishedAt: null,
    };
    p.deployments.push(stored);
    this.setStatus(p, stored, d.status);
    return stored;
  }

  /** A status change: `finished_at` for an end state; a stopped environment is available again once deployed to. */
  setStatus(p: ProjectState, d: StoredDeployment, status: string): void {
    d.status = status;
    d.updatedAt = this.now();
    if (['success', 'failed', 'canceled'].includes(status)) d.finishedAt = d.updatedAt;
    const env = p.environments.find((e) => e.id === d.environmentId);
    if (env !== undefined && env.state === 'stopped' && status === 'success') env.state = 'available';
  }

  /** The branches holding a commit, and the tags naming it. */
  refsOf(p: ProjectState, sha: string): { branches: string[]; tags: string[] } | undefined {
    const defaultBranch = p.facts.defaultBranch ?? 'main';
    const branches =
      p.facts.branches === undefined
        ? /^[0-9a-f]{40}$/.test(sha)
          ? [defaultBranch]
          : []
        : Object.entries(p.facts.branches)
            .filter(([, commits]) => commits.includes(sha))
            .map(([b]) => b);
    const tags = Object.entries(p.facts.tags ?? {})
      .filter(([, c]) => c === sha)
      .map(([t]) => t);
    return branches.length === 0 && tags.length === 0 ? undefined : { branches, tags };
  }

  /** Whether `ref` names a branch or tag of the project. */
  hasRef(p: ProjectState, ref: string): boolean {
    const branches = p.facts.branches === undefined ? [p.facts.defaultBranch ?? 'main'] : Object.keys(p.facts.branches);
    return branches.includes(ref) || Object.hasOwn(p.facts.tags ?? {}, ref);
  }

  /** Every project (for test inspection). */
  all(): ProjectState[] {
    return [...this.byPath.values()];
  }

  clear(): void {
    for (const p of this.byPath.values()) {
      p.environments.length = 0;
      p.deployments.length = 0;
    }
  }
}
