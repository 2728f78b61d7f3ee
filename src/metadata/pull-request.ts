/**
 * Which pull request a reported workload belongs to: only what an annotation says, never a guess from a
 * branch name. The Flux object's `event.toolkit.fluxcd.io/change_request` first (Flux Operator's
 * ResourceSet previews set it), then the workload's `github-deployment-bridge.io/pull-request`. Pure.
 */

/** The Flux object's annotation (and event metadata key) naming the change request of a preview. */
export const CHANGE_REQUEST_ANNOTATION = 'event.toolkit.fluxcd.io/change_request';
/** The workload's own annotation, without the bridge's prefix (`github-deployment-bridge.io/pull-request`). */
export const PULL_REQUEST_KEY = 'pull-request';

import type { ForgeHost } from './forge-route.js';
import { routeRepository } from './forge-route.js';
import { repositoryName } from './repository.js';
import { parseRepositoryLocation } from './repository-location.js';
import { quoted } from '../common/text.js';

/** A pull request (merge request on GitLab) by its number in the repository, and why the bridge thinks so. */
export interface PullRequestRef {
  number: number;
  why: string;
  /** The repository a pull request URL named (`https://github.com/acme/web`): it must be the deployment's. */
  repository?: string;
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
  return parsePullRequest(value)?.number;
}

/** A pull request from an annotation value: its number, and the repository part of a URL (without `/pull/N`). */
export function parsePullRequest(value: string): { number: number; repository?: string } | undefined {
  const v = value.trim();
  const bare = /^#?(\d{1,10})$/.exec(v);
  const url = bare === null ? /^(https?:\/\/[^\s?#]+?)(?:\/-)?\/(?:pull|pulls|merge_requests)\/(\d{1,10})\/?(?:[?#].*)?$/.exec(v) : null;
  const n = Number(bare?.[1] ?? url?.[2] ?? NaN);
  if (!(n >= 1 && n <= MAX_NUMBER)) return undefined;
  return url?.[1] === undefined ? { number: n } : { number: n, repository: url[1] };
}

/**
 * The pull request of a target: `pr` when it is the target's repository's (a number always is; a URL must name
 * the same forge and repository), else the problem. Pure; `forges` as routing knows them.
 */
export function pullRequestFor(
  pr: PullRequestResolution,
  target: { forge: string; owner: string; repo: string },
  forges: readonly ForgeHost[],
): PullRequestResolution {
  if (pr === null || 'problem' in pr || pr.repository === undefined) return pr;
  const location = parseRepositoryLocation(pr.repository);
  const routed = 'error' in location ? location : routeRepository(location, forges);
  const name = 'error' in routed ? undefined : repositoryName(routed.path, routed.nested);
  const same =
    !('error' in routed) &&
    name !== undefined &&
    routed.forge === target.forge &&
    name.owner.toLowerCase() === target.owner.toLowerCase() &&
    name.repo.toLowerCase() === target.repo.toLowerCase();
  if (same) return pr;
  return {
    problem: `${pr.why.replace(/^from /, '')} names pull request ${quoted(`${pr.repository}/…/${pr.number}`)} of another repository than ${target.owner}/${target.repo}: refused (a comment goes only on the deployment's own repository's pull requests)`,
  };
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
    const parsed = parsePullRequest(value);
    if (parsed === undefined) return { problem: `${where} names no pull request (a number, #number or a pull request URL)` };
    return { ...parsed, why: `from ${where}` };
  }
  return null;
}
