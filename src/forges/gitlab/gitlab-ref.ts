/**
 * The `ref` of a GitLab deployment: GitLab links merged merge requests and computes lead time only
 * when `ref` is the target branch, so it is a branch (or a tag), never the SHA. Pure.
 *
 * The target's own ref when it has one (the workload's `github-deployment-bridge.io/ref` annotation,
 * else the Flux object's `event.toolkit.fluxcd.io/branch`: resolved in metadata/ref-tier.ts), else
 * the branches GitLab says hold the commit, the project's default branch first. `tag: false` unless
 * the ref is a tag.
 */
import type { TargetRef } from '../../metadata/ref-tier.js';

export interface RefChoice {
  ref: string;
  tag: boolean;
  /** Where it came from, for logs. */
  from: TargetRef['from'] | 'gitlab';
}

export interface RefInputs {
  /** The target's ref (annotation or Flux object), when it has one. */
  target?: TargetRef | undefined;
  /** The branches holding the commit (`commits/:sha/refs?type=branch`), once asked; undefined before. */
  branches?: readonly string[] | undefined;
  /** The project's default branch, when known. */
  defaultBranch?: string | null | undefined;
}

/**
 * The ref to send; `lookup` when only GitLab can tell (ask for the branches holding the commit and
 * call again with them); a problem when GitLab's answer names no branch.
 */
export function chooseRef(i: RefInputs): RefChoice | { lookup: true } | { problem: string } {
  if (i.target !== undefined) return { ...i.target };
  if (i.branches === undefined) return { lookup: true };
  const preferred = i.defaultBranch != null && i.branches.includes(i.defaultBranch) ? i.defaultBranch : [...i.branches].sort()[0];
  if (preferred === undefined)
    return {
      problem:
        'no branch holds the commit: set the github-deployment-bridge.io/ref annotation to the branch (or refs/tags/<tag>) it was built from',
    };
  return { ref: preferred, tag: false, from: 'gitlab' };
}
