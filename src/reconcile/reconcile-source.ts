import type { Logger } from 'pino';
import { sweepSource, type CleanupDeps } from './sweep.js';
import { GitHubError, errorMessage, isRetryable } from '../common/errors.js';
import { derivePhase, type Phase } from '../flux/phase.js';
import type { SourceRef } from '../kube/kube-types.js';
import { desiredFor } from '../lifecycle/desired-state.js';
import { identityKey } from '../lifecycle/identity.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { Publisher } from './deployment-publisher.js';
import { RefusedByGitHub } from './refusal-guard.js';
import { resolveSource, type Candidate, type ResolveDeps } from './resolve-source.js';
import type { Skip, SourceStore } from '../store/source-store.js';

export interface ReconcileDeps extends ResolveDeps {
  /** The publisher, behind the guard that remembers GitHub's refusals. */
  publisher: Pick<Publisher, 'publish'>;
  cleanup: CleanupDeps;
  sources: SourceStore;
  log: Logger;
  now: () => number;
}

/** Why the source should be looked at again soon without waiting for an event or the resync. */
export type Recheck = 'rollout' | 'cleanup' | null;

/** What one reconcile did. */
export interface ReconcileOutcome {
  phase: Phase | null;
  published: number;
  statusesSent: number;
  skipped: number;
  recheck: Recheck;
}

/** Failures that should make the whole source retry later, after the rest of it was handled. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
}

/**
 * Reconciles one Flux source: read it, derive its phase, resolve its opted-in workloads, combine Flux's
 * word with each workload's own rollout, bring each GitHub deployment there, and end the deployments of
 * workloads that are gone. The webhook, the resync loop and re-checks all end here; an event is only a
 * trigger, the Kubernetes API is the truth.
 */
export async function reconcileSource(deps: ReconcileDeps, ref: SourceRef): Promise<ReconcileOutcome> {
  const { kube, sources, log, now } = deps;
  const obj = await kube.getFluxObject(ref);
  if (!obj) {
    sources.record({ ...ref, phase: 'deleted', reason: 'NotFound', message: `${ref.kind} not found`, revision: null, lastSeen: now() });
    const waiting = await sweepSource(deps.cleanup, ref, null);
    sources.replaceSkips(ref, [], now());
    return { phase: null, published: 0, statusesSent: 0, skipped: 0, recheck: waiting ? 'cleanup' : null };
  }
  const phase = derivePhase(obj);
  sources.record({
    ...ref,
    phase: phase.kind,
    reason: phase.reason,
    message: phase.message,
    revision: phase.revision ?? null,
    lastSeen: now(),
  });
  const resolved = await resolveSource(deps, ref, obj);
  const { skips, retry } = resolved;

  let statusesSent = 0;
  let published = 0;
  let rollingOut = false;
  const seen = new Set<string>();
  for (const w of resolved.workloads) {
    const desired = desiredFor({ phase, rollout: w.rollout, workloadKey: w.key });
    if (desired.state === null || w.candidates.length === 0) continue;
    if (w.rollout.state === 'progressing') rollingOut = true;
    for (const c of w.candidates) {
      const key = identityKey(c.target);
      if (seen.has(key)) continue;
      seen.add(key);
      published++;
      statusesSent += await publishOne(deps, ref, c, desired.state, desired.description, skips, retry);
    }
  }
  if (phase.kind === 'not_applied') log.info({ reason: phase.reason }, 'new revision not applied; deployments keep their state');

  const waiting = await sweepSource(deps.cleanup, ref, { present: resolved.present, missing: resolved.missing });
  for (const s of sources.replaceSkips(ref, skips, now())) {
    deps.metrics.skips.inc({ reason: s.code });
    log.warn(
      { workload: `${s.workload.kind}/${s.workload.namespace}/${s.workload.name}`, container: s.container, reason: s.reason },
      'workload not reported',
    );
  }
  if (retry.length > 0)
    throw new RetryLater(`${retry.length} step(s) failed and will be retried: ${errorMessage(retry[0])}`, { cause: retry[0] });
  return { phase, published, statusesSent, skipped: skips.length, recheck: rollingOut ? 'rollout' : waiting ? 'cleanup' : null };
}

/** Publishes one target; a refusal becomes a skip, an outage a retry. Returns the statuses sent. */
async function publishOne(
  deps: ReconcileDeps,
  ref: SourceRef,
  { target, origin }: Candidate,
  state: Parameters<Publisher['publish']>[2],
  description: string,
  skips: Skip[],
  retry: unknown[],
): Promise<number> {
  const tlog = deps.log.child({
    repo: `${target.owner}/${target.repo}`,
    environment: target.environment,
    sha: target.sha,
    workload: `${origin.workload.namespace}/${origin.workload.name}`,
  });
  for (const w of target.warnings) tlog.warn(w);
  try {
    const r = await deps.publisher.publish(target, origin, state, description);
    for (const s of r.sent) deps.metrics.statuses.inc({ state: s });
    return r.sent.length + r.superseded.length;
  } catch (err) {
    if (isRetryable(err)) retry.push(err);
    // The reason stays the same while the refusal holds (its retry time is in /state's github.refusals).
    else if (err instanceof RefusedByGitHub) skips.push({ ...origin, source: ref, code: err.refusal.code, reason: err.refusal.reason });
    else skips.push({ ...origin, source: ref, code: 'github_rejected', reason: githubSkipReason(err, target) });
    return 0;
  }
}

function githubSkipReason(err: unknown, t: ReportTarget): string {
  const where = `${t.owner}/${t.repo}`;
  if (err instanceof GitHubError && err.status === 404)
    return `GitHub: ${where} not found, or the token cannot see it (give it access to the repository)`;
  if (err instanceof GitHubError && err.status === 422)
    return `GitHub refused the deployment of ${t.sha} to ${where}: ${err.message} (is the commit pushed to ${where}?)`;
  return `GitHub: ${errorMessage(err)}`;
}
