/**
 * Which pull request a reported workload belongs to: only what an annotation says, never a guess from a
 * branch name. The Flux object's `event.toolkit.fluxcd.io/change_request` first (Flux Operator's
 * ResourceSet previews set it), then the workload's `github-deployment-bridge.io/pull-request`. Pure.
 */

/** The Flux object's annotation (and event metadata key) naming the change request of a preview. */
export const CHANGE_REQUEST_ANNOTATION = 'event.toolkit.fluxcd.io/change_request';
/** The workload's own annotation, without the bridge's prefix (`github-deployment-bridge.io/pull-request`). */
export const PULL_REQUEST_KEY = 'pull-request';

/** A pull request (merge request on GitLab) by its number in the repository, and why the bridge thinks so. */
export interface PullRequestRef {
  number: number;
  why: string;
}

/** What the annotations say: a pull request, a value that names none (shown as the reason), or nothing. */
export type PullRequestResolution = PullRequestRef | { problem: string } | null;

/** Largest number taken as a pull request's (GitHub's and GitLab's ids fit well below it). */
const MAX_NUMBER = 2 ** 31 - 1;

/**
 * A pull request number from an annotation value: `42`, `#42`, or a pull/merge request URL
 * (`…/pull/42`, `…/pulls/42`, `…/merge_requests/42`); undefined for anything else.
 */
export function parsePullRequestNumber(value: string): number | undefined {
  const v = value.trim();
  const m = /^#?(\d{1,10})$/.exec(v) ?? /^https?:\/\/[^\s?#]+\/(?:pull|pulls|merge_requests)\/(\d{1,10})\/?(?:[?#].*)?$/.exec(v);
  if (m === null) return undefined;
  const n = Number(m[1]);
  return n >= 1 && n <= MAX_NUMBER ? n : undefined;
}

/**
 * The pull request of a workload: from the Flux object's annotations, else the workload's bridge annotations
 * (prefix removed, as `bridgeAnnotations` returns them). A value that is set but names no pull request is a
 * problem with its reason (the next source is not consulted: the annotation was meant, and is wrong).
 */
export function pullRequestOf(
  fluxAnnotations: Readonly<Record<string, string>>,
  workload: Readonly<Record<string, string>>,
): PullRequestResolution {
  const sources: Array<[value: string | undefined, where: string]> = [
    [fluxAnnotations[CHANGE_REQUEST_ANNOTATION], `the Flux object's ${CHANGE_REQUEST_ANNOTATION} annotation`],
    [workload[PULL_REQUEST_KEY], `the workload's github-deployment-bridge.io/${PULL_REQUEST_KEY} annotation`],
  ];
  for (const [value, where] of sources) {
    if (value === undefined || value.trim() === '') continue;
    const number = parsePullRequestNumber(value);
    if (number === undefined) return { problem: `${where} names no pull request (a number, #number or a pull request URL)` };
    return { number, why: `from ${where}` };
  }
  return null;
}
