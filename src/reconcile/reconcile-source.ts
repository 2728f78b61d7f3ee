import type { Logger } from 'pino';
import { errorMessage, isRetryable } from '../common/errors.js';
import { derivePhase, type Phase } from '../flux/phase.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { Skip, SourceStore } from '../store/source-store.js';
import { planReconcile, type PublishStep, type Recheck } from './reconcile-plan.js';
import type { ForgeRouter } from './forge-router.js';
import { RefusedByForge } from '../forges/refusal-guard.js';
import { resolveSource, type ResolveDeps, type ResolvedSource } from './resolve-source.js';
import { sweep, type CleanupDeps } from './sweep.js';
import { beforePublish, type ReconcileHooks } from './reconcile-hooks.js';
import { ClusterUnavailable } from '../kube/spoke-gate.js';
import { sourceCluster, type SpokeSource } from './source-cluster.js';

export interface ReconcileDeps extends ResolveDeps {
  /** Each forge's publisher behind its refusal guard: every answer that retrying will not change arrives as RefusedByForge. */
  publisher: Pick<ForgeRouter, 'publish'> & Partial<Pick<ForgeRouter, 'prepare'>>;
  cleanup: CleanupDeps;
  /** The features' hooks at the reconcile's steps (pull request comments, the DORA figures), in order. */
  hooks?: readonly ReconcileHooks[] | undefined;
  sources: Pick<SourceStore, 'record' | 'replaceSkips' | 'forget'>;
  log: Logger;
  now: () => number;
  /** Remote clusters of Flux objects with `.spec.kubeConfig` (unset: every Flux object's workloads are the hub's). */
  spokes?: SpokeSource | undefined;
  /** This run reads through the resync pass's listings (a spoke's too). */
  viaPass?: boolean | undefined;
}

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

/** What publishing one target came to: statuses sent, a refusal (the workload is skipped), or an outage (retry). */
type Published = { sent: number; skip?: Skip } | { skip: Skip } | { retry: unknown };

/**
 * Reconciles one Flux source: reads it and its workloads, plans (`planReconcile`), then carries the
 * plan out: publishes each target, ends the deployments of workloads that are gone, records the
 * source's phase and skips. The webhook, the resync loop and re-checks all end here; an event is only a
 * trigger, the Kubernetes API is the truth. Throws RetryLater after the rest is done when an outage
 * (Kubernetes, registry, a forge) got in the way.
 */
export async function reconcileSource(deps: ReconcileDeps, ref: SourceRef): Promise<ReconcileOutcome> {
  const { sources, log, now } = deps;
  const obj = await deps.kube.getFluxObject(ref);
  const phase = obj && derivePhase(obj);
  sources.record(
    phase
      ? { ...ref, phase: phase.kind, reason: phase.reason, message: phase.message, revision: phase.revision ?? null, lastSeen: now() }
      : { ...ref, phase: 'deleted', reason: 'NotFound', message: `${ref.kind} not found`, revision: null, lastSeen: now() },
  );
  let resolved: ResolvedSource | null = null;
  if (obj) {
    // A remote Flux object's workloads are read in its spoke only: never the hub in its place.
    const where = await sourceCluster(deps, obj);
    try {
      if ('unavailable' in where) throw where.unavailable;
      resolved = await resolveSource({ ...deps, kube: where.kube, defaults: where.defaults }, ref, obj);
    } catch (err) {
      if (!(err instanceof ClusterUnavailable)) throw err;
      return clusterUnavailable(deps, ref, err);
    }
  }
  const plan = planReconcile({
    ref,
    read: phase && resolved && { phase, resolved },
    active: deps.cleanup.deployments.activeForSource(ref),
    absenceOf: (key) => deps.cleanup.absences.get(key),
    now: now(),
    graceMs: deps.cleanup.graceMs,
  });

  const results: Published[] = [];
  // The look-ups the publishes below need, asked together (Forgejo: one read of a commit for its new contexts).
  if (plan.publish.length > 1) await deps.publisher.prepare?.(plan.publish.map((s) => s.target));
  for (const step of plan.publish) results.push(await publishOne(deps, ref, step));
  if (phase?.kind === 'not_applied') log.info({ reason: phase.reason }, 'new revision not applied; deployments keep their state');
  // A deactivation that failed (an outage, a paused installation) still lets the skips below be recorded.
  const swept = await sweep(deps.cleanup, plan.cleanup).then(
    () => [],
    (err: unknown) => [err],
  );

  for (const h of deps.hooks ?? []) h.settle?.();
  const skips = [...plan.skips, ...results.flatMap((r) => ('skip' in r && r.skip !== undefined ? [r.skip] : []))];
  // Gone and never reported (a signed event naming an object that does not exist): nothing to show or do, no row
  // stays. A source that had deployments stays `deleted` in /state until the prune (retention.ts) takes it.
  if (obj === null && swept.length === 0 && !deps.cleanup.deployments.knowsSource(ref)) sources.forget(ref);
  else
    for (const s of sources.replaceSkips(ref, skips, now())) {
      deps.metrics.skips.inc({ reason: s.code });
      log.warn(
        { workload: `${s.workload.kind}/${s.workload.namespace}/${s.workload.name}`, container: s.container, reason: s.reason },
        'workload not reported',
      );
    }
  const retry = [...plan.retry, ...results.flatMap((r) => ('retry' in r ? [r.retry] : [])), ...swept];
  if (retry.length > 0) {
    // An outage backs off; otherwise the source comes back at the earliest time a step asked for (a pause's end,
    // a write's turn in its forge's budget), so no step's turn passes unused.
    const first = retry.find((e) => retryAtOf(e) === Infinity) ?? retry.reduce((a, b) => (retryAtOf(b) < retryAtOf(a) ? b : a));
    throw new RetryLater(`${retry.length} step(s) failed and will be retried: ${errorMessage(first)}`, { cause: first });
  }
  const statusesSent = results.reduce((n, r) => n + ('sent' in r ? r.sent : 0), 0);
  return { phase, published: plan.publish.length, statusesSent, skipped: skips.length, recheck: plan.recheck };
}

/**
 * The spoke cannot be read: its rows keep their last state (nothing is planned, so nothing is written or
 * ended), the Flux object shows why (one skip, in /state and explain, counted), and it is retried with backoff.
 */
function clusterUnavailable(deps: ReconcileDeps, ref: SourceRef, err: ClusterUnavailable): never {
  const skip: Skip = { source: ref, workload: ref, container: '', code: 'cluster_unavailable', reason: err.message };
  for (const s of deps.sources.replaceSkips(ref, [skip], deps.now())) {
    deps.metrics.skips.inc({ reason: s.code });
    deps.log.warn({ cluster: err.cluster, reason: s.reason }, "Flux object's cluster cannot be read: its deployments keep their state");
  }
  throw new RetryLater(err.message, { cause: err });
}

/** The time a failure asks to be retried at (a forge's Retry-After, a write budget's turn), else Infinity. */
function retryAtOf(err: unknown): number {
  const at = (err as { retryAt?: unknown } | null)?.retryAt;
  return typeof at === 'number' ? at : Infinity;
}

/** Publishes one target through the guard; a refusal becomes a skip, an outage a retry. */
async function publishOne(deps: ReconcileDeps, ref: SourceRef, step: PublishStep): Promise<Published> {
  const { target, origin, state, description } = step;
  const after = await beforePublish(deps.hooks, step);
  const tlog = deps.log.child({
    forge: target.forge,
    repo: `${target.owner}/${target.repo}`,
    environment: target.environment,
    sha: target.sha,
    workload: `${origin.workload.namespace}/${origin.workload.name}`,
  });
  for (const w of target.warnings) tlog.warn(w);
  try {
    const r = await deps.publisher.publish(target, origin, state, description);
    const sent = r.sent.length + r.superseded;
    const skip = after.map((a) => a(state)).find((s) => s !== undefined);
    if (skip !== undefined) return { sent, skip: { ...origin, source: ref, ...skip } };
    return { sent };
  } catch (err) {
    if (isRetryable(err)) return { retry: err };
    // The reason stays the same while the refusal holds (its retry time is in /state's `<forge>.refusals`).
    if (err instanceof RefusedByForge) return { skip: { ...origin, source: ref, code: err.refusal.code, reason: err.refusal.reason } };
    // Not a forge's answer (the guard made every final one a refusal): a local failure, skipped with its message.
    return { skip: { ...origin, source: ref, code: 'local_failure', reason: `not reported: ${errorMessage(err)}` } };
  }
}
