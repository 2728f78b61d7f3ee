import { isRecord } from '../common/json.js';
import type { Condition, K8sObject } from './k8s-objects.js';

/**
 * What a Flux object's status says about the revision it carries:
 * - `success`: applied and ready; `failure`: applying or health checks failed;
 * - `in_progress`: still reconciling; `not_applied`: the new revision never reached the cluster,
 *   so workloads still run what they ran and their deployments keep their state.
 */
export type PhaseKind = 'success' | 'failure' | 'in_progress' | 'not_applied';

export interface Phase {
  kind: PhaseKind;
  reason: string;
  message: string;
  /** The source revision Flux last attempted or applied, e.g. `main@sha1:…`, when known. */
  revision?: string;
}

/** Ready=False reasons meaning nothing new was applied to the cluster. */
const NOT_APPLIED_REASONS = new Set(['ArtifactFailed', 'BuildFailed']);

/** Ready=False reasons that are failures even before the generation is observed. */
const FAILURE_REASONS = new Set([
  'HealthCheckFailed',
  'ProgressDeadlineExceeded',
  'ReconciliationFailed',
  'InstallFailed',
  'UpgradeFailed',
  'UninstallFailed',
  'RollbackFailed',
  'TestFailed',
  'InventoryBuildFailed',
]);

/** Ready=False reasons that mean "wait": the object is not done, not broken. */
const WAITING_REASONS = new Set(['DependencyNotReady', 'HealthCheckCanceled', 'Progressing', 'ProgressingWithRetry']);

function condition(obj: K8sObject, type: string): Condition | undefined {
  const list = obj.status?.conditions;
  return Array.isArray(list) ? (list as unknown[]).find((c): c is Condition => isRecord(c) && c.type === type) : undefined;
}

function revisionOf(obj: K8sObject): string | undefined {
  const s = obj.status ?? {};
  for (const key of ['lastAttemptedRevision', 'lastAppliedRevision', 'lastAttemptedConfigDigest']) {
    if (typeof s[key] === 'string' && s[key]) return s[key];
  }
  const latest: unknown = Array.isArray(s.history) ? s.history[0] : undefined;
  if (isRecord(latest) && typeof latest.chartVersion === 'string') {
    return `${typeof latest.chartName === 'string' ? latest.chartName : 'chart'}@${latest.chartVersion}`;
  }
  return undefined;
}

/** Derives the phase of a Kustomization or HelmRelease from its status conditions. */
export function derivePhase(obj: K8sObject): Phase {
  const revision = revisionOf(obj);
  const ready = condition(obj, 'Ready');
  const stalled = condition(obj, 'Stalled');
  const generation = obj.metadata.generation;
  const observedGeneration = obj.status?.observedGeneration;
  const observed = generation === undefined || generation === observedGeneration;
  const from = (kind: PhaseKind, c: Condition | undefined, fallback: string): Phase => ({
    kind,
    reason: c?.reason ?? fallback,
    message: c?.message ?? '',
    ...(revision ? { revision } : {}),
  });

  if (ready?.status === 'False' && NOT_APPLIED_REASONS.has(ready.reason ?? '')) return from('not_applied', ready, '');
  if (stalled?.status === 'True') return from('failure', stalled, 'Stalled');
  if (ready?.status === 'True' && observed) return from('success', ready, 'Ready');
  if (ready?.status === 'False') {
    const reason = ready.reason ?? '';
    if (FAILURE_REASONS.has(reason) || (observed && !WAITING_REASONS.has(reason))) return from('failure', ready, 'Failed');
  }
  if (!observed)
    return { kind: 'in_progress', reason: 'Progressing', message: 'new generation not yet observed', ...(revision ? { revision } : {}) };
  return from('in_progress', ready, 'Progressing');
}
