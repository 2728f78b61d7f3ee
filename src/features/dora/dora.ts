/**
 * The four DORA keys, from the bridge's own deployment facts: pure functions, no clock, no store.
 *
 * Timestamps are epoch milliseconds. A commit's time is its **committer** date (when the commit took its
 * final form: a rebase, a squash or a cherry-pick resets it, the author date keeps the first draft's time,
 * so author dates overstate the lead time of a reviewed change). A figure that cannot be known (no commit
 * time, no data for the window) is `undefined`, never 0.
 */

/** One deployment of one commit into one environment, as the store knows it. */
export interface DeploymentFact {
  forge: string;
  /** `owner/repo`. */
  repository: string;
  environment: string;
  sha: string;
  /** The commit's committer date; null until read from its forge. */
  commitAt: number | null;
  /** When the bridge first saw this deployment (its rollout began). */
  startedAt: number;
  /** When the rollout was really complete (the bridge recorded `success`); null if it never was. */
  succeededAt: number | null;
  /** When the bridge recorded a `failure`; null if none. */
  failedAt: number | null;
  cluster: string | null;
  /** A later deployment of another commit replaced it. */
  superseded: boolean;
  /** The `production` flag (or a `production`/`prod` name). */
  production: boolean;
  /** A preview (transient environment): never counted. */
  transient: boolean;
}

export interface DoraOptions {
  /** The window's end (exclusive); the window is `[now - windowMs, now)`. */
  now: number;
  windowMs: number;
  /** A success followed within this time by a deployment of an older commit counts as a failed change. */
  rollbackWindowMs: number;
  /** From when the history is complete (the database's first row); before it nothing is known. */
  since?: number;
  /** Environments to count besides production ones (`DORA_ENVIRONMENTS`); previews never. */
  include?: (environment: string) => boolean;
  /** Commits oldest first, per repository; where absent, commit times, then first sight, order them. */
  commitOrder?: ReadonlyMap<string, readonly string[]>;
}

/** The figures of one (forge, repository, environment). */
export interface DoraFigures {
  forge: string;
  repository: string;
  environment: string;
  /** Successful deployments per day and per week over the window; undefined when the window has no known history. */
  perDay?: number;
  perWeek?: number;
  /** Lead times (ms) of the window's successes with a known commit time. */
  leadTimesMs: number[];
  leadTimeMedianMs?: number;
  /** Lead times that were negative (clock skew between forge and cluster) and were counted as 0. */
  skewClamped: number;
  /** Finished deployments (success or failure) in the window, and those that failed or were rolled back. */
  deployments: number;
  failedChanges: number;
  /** failedChanges / deployments; undefined with no finished deployment. */
  changeFailureRate?: number;
  /** Failure → next success in the same environment (ms), for the window's failures that were restored. */
  restoreTimesMs: number[];
  restoreMedianMs?: number;
  /** Failures of the window with no success since. */
  unrestored: number;
}

const DAY_MS = 86_400_000;
const PRODUCTION_NAMES = ['production', 'prod'];

/**
 * Whether a fact's environment is counted: production (the flag, or the name `production`/`prod`, any case, alone or
 * as the folder of per-cluster environments, `production/eu-1`) or included by pattern; previews never. Pure.
 */
export function countsForDora(
  fact: Pick<DeploymentFact, 'environment' | 'transient'> & { production?: boolean },
  include?: (environment: string) => boolean,
): boolean {
  if (fact.transient) return false;
  const name = fact.environment.toLowerCase();
  const production = PRODUCTION_NAMES.some((p) => name === p || name.startsWith(`${p}/`));
  return fact.production === true || production || include?.(fact.environment) === true;
}

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const [low, high] = [sorted[mid - 1] ?? 0, sorted[mid] ?? 0];
  return sorted.length % 2 === 1 ? high : (low + high) / 2;
}

/** When a fact happened, for its window: its finish (success, else failure), else its start. */
const atOf = (f: DeploymentFact): number => f.succeededAt ?? f.failedAt ?? f.startedAt;

/** The first index of ascending `values` at or above `min` (`values.length` when none is). */
function lowerBound(values: readonly number[], min: number): number {
  let [lo, hi] = [0, values.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? Infinity) >= min) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** One environment's facts indexed once, so each question about a fact costs O(log n), not a pass over all of them. */
interface EnvironmentIndex {
  /** The facts by start, ties in their order (a stable sort), and their starts. */
  byStart: readonly DeploymentFact[];
  starts: readonly number[];
  /** Each commit's first start. */
  firstSeen: ReadonlyMap<string, number>;
  /** Each commit's place in the given order, where it has one. */
  rank: ReadonlyMap<string, number>;
}

function indexEnvironment(facts: readonly DeploymentFact[], order?: readonly string[]): EnvironmentIndex {
  const byStart = [...facts].sort((a, b) => a.startedAt - b.startedAt);
  const firstSeen = new Map<string, number>();
  for (const f of byStart) if (!firstSeen.has(f.sha)) firstSeen.set(f.sha, f.startedAt);
  const rank = new Map<string, number>();
  for (const [i, sha] of (order ?? []).entries()) if (!rank.has(sha)) rank.set(sha, i);
  return { byStart, starts: byStart.map((f) => f.startedAt), firstSeen, rank };
}

/** Whether commit `a` is older than commit `b` in one environment's facts: by the given order, commit times, then first sight. */
function olderThan(a: DeploymentFact, b: DeploymentFact, index: EnvironmentIndex): boolean {
  const [ra, rb] = [index.rank.get(a.sha), index.rank.get(b.sha)];
  if (ra !== undefined && rb !== undefined) return ra < rb;
  if (a.commitAt !== null && b.commitAt !== null) return a.commitAt < b.commitAt;
  return (index.firstSeen.get(a.sha) ?? Infinity) < (index.firstSeen.get(b.sha) ?? Infinity);
}

/** Whether a successful deployment was followed, within the rollback window, by a deployment of an older commit. */
function rolledBack(f: DeploymentFact, index: EnvironmentIndex, opts: DoraOptions): boolean {
  const done = f.succeededAt;
  if (done === null) return false;
  // The first deployment of another commit that started within the window after it (the earliest start; ties in order).
  for (let i = lowerBound(index.starts, done); i < index.byStart.length; i++) {
    const next = index.byStart[i];
    if (next === undefined || next.startedAt > done + opts.rollbackWindowMs) return false;
    if (next.sha !== f.sha) return olderThan(next, f, index);
  }
  return false;
}

/** The figures of one environment's facts (all of one forge, repository and environment). Pure. */
export function environmentFigures(
  facts: readonly DeploymentFact[],
  opts: DoraOptions,
): Omit<DoraFigures, 'forge' | 'repository' | 'environment'> {
  const start = Math.max(opts.now - opts.windowMs, opts.since ?? -Infinity);
  const inWindow = (t: number) => t >= start && t < opts.now;
  const known = start < opts.now && facts.length > 0;
  const successAt = facts.flatMap((f) => (f.succeededAt !== null ? [f.succeededAt] : [])).sort((a, b) => a - b);
  const successes = facts.flatMap((f) =>
    f.succeededAt !== null && inWindow(f.succeededAt) ? [{ at: f.succeededAt, commitAt: f.commitAt }] : [],
  );
  const days = (opts.now - start) / DAY_MS;
  const raw = successes.flatMap((s) => (s.commitAt !== null ? [s.at - s.commitAt] : []));
  const leadTimesMs = raw.map((d) => Math.max(0, d));
  const finished = facts.filter((f) => (f.succeededAt !== null || f.failedAt !== null) && inWindow(atOf(f)));
  // One deployment alone cannot be rolled back (that needs another commit): the index only for two or more.
  const index = facts.length > 1 ? indexEnvironment(facts, opts.commitOrder?.get(facts[0]?.repository ?? '')) : undefined;
  const failedChanges = finished.filter((f) => f.failedAt !== null || (index !== undefined && rolledBack(f, index, opts))).length;
  const failures = facts.flatMap((f) => (f.failedAt !== null && inWindow(f.failedAt) ? [f.failedAt] : []));
  // Each failure's restore: the first success at or after it (successAt is ascending).
  const restoreTimesMs = failures.flatMap((at) => {
    const next = successAt[lowerBound(successAt, at)];
    return next === undefined ? [] : [next - at];
  });
  return {
    perDay: known ? successes.length / days : undefined,
    perWeek: known ? (successes.length / days) * 7 : undefined,
    leadTimesMs,
    leadTimeMedianMs: median(leadTimesMs),
    skewClamped: raw.filter((d) => d < 0).length,
    deployments: finished.length,
    failedChanges,
    changeFailureRate: finished.length > 0 ? failedChanges / finished.length : undefined,
    restoreTimesMs,
    restoreMedianMs: median(restoreTimesMs),
    unrestored: failures.length - restoreTimesMs.length,
  };
}

/** Items by key, in their order (Map.groupBy, which the ES2023 library lacks). */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** The figures per (forge, repository, environment) of the counted environments, sorted by those three. Pure. */
export function doraFigures(facts: readonly DeploymentFact[], opts: DoraOptions): DoraFigures[] {
  const groups = groupBy(
    facts.filter((f) => countsForDora(f, opts.include)),
    (f) => JSON.stringify([f.forge, f.repository, f.environment]),
  );
  return [...groups.keys()].sort().map((key) => {
    const group = groups.get(key) ?? [];
    const [forge = '', repository = '', environment = ''] = JSON.parse(key) as string[];
    return { forge, repository, environment, ...environmentFigures(group, opts) };
  });
}
