import type { Logger } from 'pino';
import { GitHubError, KubeError, RegistryError, errorMessage, isRetryable } from './errors.js';
import { workloadsFromInventory } from './flux/inventory.js';
import { derivePhase, type Phase } from './flux/phase.js';
import type { KubeReader, SourceRef } from './kube/types.js';
import { identityKey } from './lifecycle/identity.js';
import {
  bridgeAnnotations, isOptedIn, needsLabels, resolveTarget, type Defaults, type ImageFacts, type ReportTarget,
} from './metadata/resolve.js';
import type { Metrics } from './metrics.js';
import type { ImageFactsSource } from './images/image-facts.js';
import type { Publisher } from './publisher.js';
import { RefusedByGitHub } from './refusals.js';
import type { Origin } from './store/deployments.js';
import type { Skip, SourceStore } from './store/sources.js';
import { readWorkload, templateContainers, type ReadWorkload } from './workloads.js';

export interface ReconcileDeps {
  kube: KubeReader;
  /** Running digests (from pods) and OCI labels (from registries, with the workload's credentials). */
  images: ImageFactsSource;
  /** The publisher, behind the guard that remembers GitHub's refusals. */
  publisher: Pick<Publisher, 'publish'>;
  sources: SourceStore;
  defaults: Defaults;
  log: Logger;
  metrics: Metrics;
  now: () => number;
}

/** What one reconcile did. */
export interface ReconcileOutcome {
  phase: Phase | null;
  published: number;
  statusesSent: number;
  skipped: number;
}

/** Failures that should make the whole source retry later, after the rest of it was handled. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
}

interface Candidate {
  target: ReportTarget;
  origin: Origin;
}

/**
 * Reconciles one Flux source: read it, derive its phase, walk its inventory to opted-in workloads,
 * resolve each container's metadata and bring its GitHub deployment to the phase. The webhook and the
 * resync loop both end here; an event is only a trigger, the Kubernetes API is the truth.
 */
export async function reconcileSource(deps: ReconcileDeps, ref: SourceRef): Promise<ReconcileOutcome> {
  const { kube, sources, log, now } = deps;
  const obj = await kube.getFluxObject(ref);
  if (!obj) {
    sources.record({ ...ref, phase: 'deleted', reason: 'NotFound', message: `${ref.kind} not found`, revision: null, lastSeen: now() });
    return { phase: null, published: 0, statusesSent: 0, skipped: 0 };
  }
  const phase = derivePhase(obj);
  sources.record({ ...ref, phase: phase.kind, reason: phase.reason, message: phase.message, revision: phase.revision ?? null, lastSeen: now() });
  if (phase.kind === 'not_applied') {
    log.info({ reason: phase.reason }, 'new revision not applied; deployments keep their state');
    return { phase, published: 0, statusesSent: 0, skipped: 0 };
  }

  const skips: Skip[] = [];
  const retry: unknown[] = [];
  const candidates = new Map<string, Candidate>();
  for (const wref of workloadsFromInventory(obj.status)) {
    const read = await readWorkload(kube, wref);
    if ('ignored' in read) continue;
    if ('missing' in read) {
      skips.push({ source: ref, workload: wref, container: '', code: 'workload_missing', reason: read.missing });
      continue;
    }
    for (const c of await workloadCandidates(deps, ref, read.workload, skips, retry)) {
      const key = identityKey(c.target);
      if (!candidates.has(key)) candidates.set(key, c);
    }
  }

  let statusesSent = 0;
  const description = phase.message ? `${phase.reason}: ${phase.message}` : phase.reason;
  for (const { target, origin } of candidates.values()) {
    const tlog = log.child({ repo: `${target.owner}/${target.repo}`, environment: target.environment, sha: target.sha, workload: `${origin.workload.namespace}/${origin.workload.name}` });
    for (const w of target.warnings) tlog.warn(w);
    try {
      const r = await deps.publisher.publish(target, origin, phase.kind, description);
      statusesSent += r.sent.length + r.superseded.length;
      for (const s of r.sent) deps.metrics.statuses.inc({ state: s });
    } catch (err) {
      if (isRetryable(err)) retry.push(err);
      else if (err instanceof RefusedByGitHub) skips.push({ ...origin, source: ref, code: err.refusal.code, reason: err.message });
      else skips.push({ ...origin, source: ref, code: 'github_rejected', reason: githubSkipReason(err, target) });
    }
  }

  for (const s of sources.replaceSkips(ref, skips, now())) {
    deps.metrics.skips.inc({ reason: s.code });
    log.warn({ workload: `${s.workload.kind}/${s.workload.namespace}/${s.workload.name}`, container: s.container, reason: s.reason }, 'workload not reported');
  }
  if (retry.length > 0) throw new RetryLater(`${retry.length} step(s) failed and will be retried: ${errorMessage(retry[0])}`, { cause: retry[0] });
  return { phase, published: candidates.size, statusesSent, skipped: skips.length };
}

/** Report targets of one workload: one per container that resolves; skips recorded for the rest. */
async function workloadCandidates(
  deps: ReconcileDeps, ref: SourceRef, w: ReadWorkload, skips: Skip[], retry: unknown[],
): Promise<Candidate[]> {
  const meta = w.object.metadata;
  const workload = { kind: w.kind, namespace: meta.namespace ?? '', name: meta.name };
  const annotations = bridgeAnnotations(w.object);
  if (!isOptedIn(annotations)) return [];
  const info = { ...workload, annotations, containers: templateContainers(w.object) };
  const found: Candidate[] = [];
  const failed: Skip[] = [];
  const images = deps.images.forWorkload(w.object);
  const labelsNeeded = needsLabels(annotations);
  for (const container of info.containers) {
    let facts: ImageFacts | undefined;
    try {
      // The running digest is recorded even when annotations make the registry unnecessary.
      facts = await images.facts(container, labelsNeeded);
      if (labelsNeeded) deps.metrics.registryRequests.inc({ outcome: 'ok' });
    } catch (err) {
      const failure = err instanceof RegistryError ? err.failure : 'error';
      if (labelsNeeded) deps.metrics.registryRequests.inc({ outcome: failure });
      if (isRetryable(err)) retry.push(err);
      const code = err instanceof KubeError ? 'kube_error' : `registry_${failure}`;
      failed.push({ source: ref, workload, container: container.name, code, reason: errorMessage(err) });
      continue;
    }
    const r = resolveTarget(ref, info, container, facts, deps.defaults);
    if ('target' in r) {
      found.push({ target: r.target, origin: { source: ref, workload, container: container.name, image: container.image } });
    } else {
      failed.push({ source: ref, workload, container: container.name, code: r.code, reason: r.skip });
    }
  }
  // A sidecar without usable metadata is dropped silently when another container reported.
  if (found.length === 0) skips.push(...failed);
  return found;
}

function githubSkipReason(err: unknown, t: ReportTarget): string {
  const where = `${t.owner}/${t.repo}`;
  if (err instanceof GitHubError && err.status === 404) return `GitHub: ${where} not found, or the token cannot see it (give it access to the repository)`;
  if (err instanceof GitHubError && err.status === 422) return `GitHub refused the deployment of ${t.sha} to ${where}: ${err.message} (is the commit pushed to ${where}?)`;
  return `GitHub: ${errorMessage(err)}`;
}
