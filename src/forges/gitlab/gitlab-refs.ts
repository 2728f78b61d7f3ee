/**
 * The ref each deployment is created with: the target's own (annotation or Flux object), else GitLab's
 * branches holding the commit, the project's default branch first (`chooseRef`). GitLab is asked once
 * per commit (the branches holding a commit do not change what the bridge sends) and once per project
 * for its default branch, per process.
 */
import type { ReportTarget } from '../../metadata/resolve-target.js';
import { chooseRef } from './gitlab-ref.js';
import type { GitLabPort } from './gitlab-side.js';

/** No ref to send: GitLab's answer names no branch holding the commit. A refusal (gitlab-refusal.ts), not a retry. */
export class NoRefFound extends Error {
  override readonly name = 'NoRefFound';
}

export class GitLabRefs {
  /** Per project and commit. */
  private readonly looked = new Map<string, { ref: string; tag: boolean }>();
  /** Per project. */
  private readonly defaultBranches = new Map<string, string | null>();

  constructor(private readonly port: Pick<GitLabPort, 'branchesContaining' | 'project'>) {}

  async of(path: string, target: Pick<ReportTarget, 'ref' | 'sha'>): Promise<{ ref: string; tag: boolean }> {
    const own = chooseRef({ target: target.ref }); // the target's own ref, else `lookup`: ask GitLab
    if ('ref' in own) return { ref: own.ref, tag: own.tag };
    const key = `${path}@${target.sha}`;
    const cached = this.looked.get(key);
    if (cached !== undefined) return cached;
    const [branches, defaultBranch] = await Promise.all([this.port.branchesContaining(path, target.sha), this.defaultBranchOf(path)]);
    const choice = chooseRef({ branches, defaultBranch });
    if ('lookup' in choice || 'problem' in choice)
      throw new NoRefFound(`${path}@${target.sha.slice(0, 7)}: ${'problem' in choice ? choice.problem : 'no ref'}`);
    const ref = { ref: choice.ref, tag: choice.tag };
    this.looked.set(key, ref);
    return ref;
  }

  private async defaultBranchOf(path: string): Promise<string | null> {
    const known = this.defaultBranches.get(path);
    if (known !== undefined) return known;
    const branch = (await this.port.project(path)).default_branch;
    this.defaultBranches.set(path, branch);
    return branch;
  }
}
