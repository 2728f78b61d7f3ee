/**
 * The bridge process's /state answer as the end-to-end tests, reliability tests and benchmarks read it.
 * It is JSON: times are ISO strings (null when unset) where the stores hold milliseconds. Declared, not
 * validated: the tests' assertions are the check.
 */
import type { WriteBudgetView } from '../../src/forges/forge.js';
import type { Readiness } from '../../src/health/readiness.js';

/** One cached deployment, as /state lists it. */
export interface StateDeployment {
  forge: string;
  /** PULL_REQUEST_COMMENTS: the pull request its comment row belongs to, and why (null: none named). */
  pullRequest?: { number: number; why: string; leftOut?: string } | null;
  owner: string;
  repo: string;
  environment: string;
  sha: string;
  deploymentName: string;
  /** On a forge with deployment objects. */
  deploymentId?: number | null;
  /** On a forge of commit statuses: the status context. */
  context?: string | null;
  /** In neutral words (those of `gdb_deployments`): `provisional` until the forge has the deployment, `gone` once ended. */
  state: string;
  /** The state in the forge's own words (GitHub's `inactive`, GitLab's `canceled`). */
  forgeState: string;
  /** The forge's page for the row. */
  url?: string;
  description: string | null;
  /** `Kind/namespace/name`. */
  workload: string;
  container: string;
  image: string;
  /** `Kind/namespace/name` of the Flux object. */
  fluxObject: string;
  updatedAt: string | null;
}

/** A workload container the bridge did not report, and why. */
export interface StateSkip {
  /** `Kind/namespace/name` of the Flux object. */
  fluxObject: string;
  workload: string;
  container: string | null;
  code: string;
  reason: string;
  since: string | null;
}

/** The last phase seen for a Flux object (a Kustomization or HelmRelease). */
export interface StateFluxObject {
  kind: string;
  namespace: string;
  name: string;
  phase: string | null;
  reason: string | null;
  message: string | null;
  revision: string | null;
  lastSeen: string | null;
  lastError: string | null;
}

/** A queued Flux object with its retry state. */
export interface StateQueueItem {
  kind: string;
  namespace: string;
  name: string;
  state: string;
  attempts: number;
  notBefore: string | null;
  lastError: string | null;
}

/** A pause as /state shows it. */
export interface StatePause {
  kind: string;
  reason: string;
  since: string | null;
  until: string | null;
}

/** The `github` section: credentials, the pauses (of everything; per credential scope) and the remaining budget per scope. */
export interface StateGitHub {
  auth: 'token' | 'app';
  credentials: { state: string; reason: string | null; checkedAt: string | null; nextCheckAt: string | null };
  paused: StatePause | null;
  pausedScopes: Array<StatePause & { scope: string }>;
  budgets: Array<{
    scope: string;
    resource: string;
    limit: number;
    remaining: number;
    used: number | null;
    resetAt: string | null;
    observedAt: string | null;
  }>;
  refusals: Array<Record<string, unknown>>;
  /** `GITHUB_WRITE_BUDGET` and the backlog per credential scope. */
  writeBudget: WriteBudgetView | null;
}

/** The whole answer of the bridge process, which always has its storage, registry cache and GitHub sections. */
export interface StateBody {
  /** `DRY_RUN`: forge writes logged, not sent. */
  dryRun: boolean;
  /** The trust boundary: `open` (no ALLOWED_REPOSITORIES) or `allow-list` with its number of patterns. */
  trust: { mode: 'open' | 'allow-list'; patterns: number; repositorySource: string };
  deployments: StateDeployment[];
  skipped: StateSkip[];
  fluxObjects: StateFluxObject[];
  queue: { pending: number; active: number; running: number; items: StateQueueItem[] };
  readiness: Readiness;
  storage: { path: string; writable: boolean; damaged: string | null; problem: Record<string, unknown> | null };
  registryCache: { digests: number; tags: number };
  github: StateGitHub;
  /** The `forgejo` section when Forgejo is configured; `sharedReads`: the reads of commits' statuses its contexts shared. */
  forgejo?: { url: string; sharedReads?: { reads: number; shared: number; again: number } };
  /** The clusters read: the bridge's own, then each remote one (Flux objects with spec.kubeConfig). */
  clusters?: Array<{
    name: string;
    local: boolean;
    answers: boolean | null;
    lastAnswerAt: string | null;
    reason: string | null;
    credentials: string | null;
  }>;
  /** The four DORA keys of the last 30 days per repository and environment (null: cannot be known). */
  dora?: {
    windowDays: number;
    environments: Record<string, string | number | null>[];
    /** The commit times read for the lead time. */
    commitTimes?: { known: number; missing: number; failed: number; lastError: { at: string; forge: string; reason: string } | null };
    /** When the figures shown were computed (off the request path); none yet: null. */
    computedAt?: string | null;
  };
  /** PULL_REQUEST_COMMENTS: each comment of the bridge's cluster. */
  pullRequestComments?: StatePullRequestComment[];
  /** PULL_REQUEST_COMMENTS: comments kept but not listed (the list holds the most lately changed). */
  pullRequestCommentsOmitted?: number;
}

/** One pull request comment in /state. */
export interface StatePullRequestComment {
  forge: string;
  repository: string;
  pullRequest: number;
  cluster: string;
  commentId: number | null;
  pending: boolean;
  due: boolean;
  skipReason: string | null;
  writtenAt: string | null;
}

/** Nothing queued, being worked on or running. */
export function queueIdle(s: StateBody): boolean {
  return s.queue.pending + s.queue.active + s.queue.running === 0;
}
