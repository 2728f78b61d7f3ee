/**
 * The `ref` of a GitLab deployment: GitLab links merged merge requests and computes lead time only
 * when `ref` is the target branch, so it is a branch (or a tag), never the SHA. Pure.
 *
 * In order: the workload's `github-deployment-bridge.io/ref` annotation, else the Flux object's
 * `event.toolkit.fluxcd.io/branch` annotation (Flux Operator previews set it), else the branches
 * GitLab says hold the commit, the project's default branch first. `tag: false` unless the ref is a
 * tag (`refs/tags/…`, or a tag GitLab names when no branch holds the commit).
 */

/** The workload annotation naming the ref. */
export const REF_ANNOTATION = 'github-deployment-bridge.io/ref';
/** The Flux object annotation Flux Operator's previews set to the pull request's branch. */
export const FLUX_BRANCH_ANNOTATION = 'event.toolkit.fluxcd.io/branch';

export interface RefChoice {
  ref: string;
  tag: boolean;
  /** Where it came from, for `explain` and /state. */
  from: 'annotation' | 'flux' | 'gitlab';
}

export interface RefInputs {
  workloadAnnotations: Readonly<Record<string, string>>;
  fluxAnnotations: Readonly<Record<string, string>>;
  /** The branches holding the commit (`commits/:sha/refs?type=branch`), once asked; undefined before. */
  branches?: readonly string[] | undefined;
  /** The project's default branch, when known. */
  defaultBranch?: string | null | undefined;
}

/** `refs/heads/x` → branch x, `refs/tags/v1` → tag v1, anything else as written. */
function named(value: string): { ref: string; tag: boolean } | undefined {
  const v = value.trim();
  if (v === '') return undefined;
  const tag = /^refs\/tags\/(.+)$/.exec(v)?.[1];
  if (tag !== undefined) return { ref: tag, tag: true };
  return { ref: v.replace(/^refs\/heads\//, ''), tag: false };
}

/**
 * The ref to send; `lookup` when only GitLab can tell (ask for the branches holding the commit and
 * call again with them); a problem when GitLab's answer names no branch.
 */
export function chooseRef(i: RefInputs): RefChoice | { lookup: true } | { problem: string } {
  const annotated = named(i.workloadAnnotations[REF_ANNOTATION] ?? '');
  if (annotated !== undefined) return { ...annotated, from: 'annotation' };
  const flux = named(i.fluxAnnotations[FLUX_BRANCH_ANNOTATION] ?? '');
  if (flux !== undefined) return { ...flux, from: 'flux' };
  if (i.branches === undefined) return { lookup: true };
  const preferred = i.defaultBranch != null && i.branches.includes(i.defaultBranch) ? i.defaultBranch : [...i.branches].sort()[0];
  if (preferred === undefined)
    return {
      problem: `no branch holds the commit: set the ${REF_ANNOTATION} annotation to the branch (or refs/tags/<tag>) it was built from`,
    };
  return { ref: preferred, tag: false, from: 'gitlab' };
}
