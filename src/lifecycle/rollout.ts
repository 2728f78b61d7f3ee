import type { Condition, K8sObject } from '../flux/k8s-objects.js';

/** The workload kinds whose rollout the bridge can judge (a ReplicaSet is judged through its Deployment). */
export type RolloutKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

/**
 * Where a workload's own rollout of its current spec stands, independent of Flux:
 * - `complete`: every replica runs the current template and is available/ready;
 * - `progressing`: not there yet (or the controller has not seen the new spec);
 * - `paused`: a Deployment with `spec.paused` that has not finished: nothing moves until it is resumed;
 * - `failed`: the Deployment controller gave up (`Progressing=False`, `ProgressDeadlineExceeded`).
 * `description` is short and human ("3/5 replicas updated"), fit for a forge's status.
 */
export interface Rollout {
  state: 'complete' | 'progressing' | 'paused' | 'failed';
  description: string;
}

/** Description while the workload's controller has not yet observed its latest spec. */
export const NOT_OBSERVED = 'waiting for the rollout to be observed';
/** Description of a Deployment whose controller reported `ProgressDeadlineExceeded`. */
export const DEADLINE_EXCEEDED = 'progress deadline exceeded';
/** How the description of a paused, unfinished Deployment begins (what is left follows). */
export const PAUSED = 'paused';

const progressing = (description: string): Rollout => ({ state: 'progressing', description });
const complete = (description: string): Rollout => ({ state: 'complete', description });

/** A count from spec or status: the API omits zero values, so absent means `fallback`. */
function count(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The controller has acted on the latest spec: `status.observedGeneration` is present and not behind
 * `metadata.generation` (a status without it was never written by the controller).
 */
function observed(obj: K8sObject): boolean {
  const seen = obj.status?.observedGeneration;
  return typeof seen === 'number' && seen >= (obj.metadata.generation ?? 0);
}

/** `spec.updateStrategy` (StatefulSet, DaemonSet); Kubernetes defaults the type to RollingUpdate. */
function updateStrategy(obj: K8sObject): { type: string; partition: number } {
  const s = (obj.spec?.updateStrategy ?? {}) as { type?: unknown; rollingUpdate?: { partition?: unknown } };
  return { type: typeof s.type === 'string' ? s.type : 'RollingUpdate', partition: count(s.rollingUpdate?.partition) };
}

function deploymentRollout(obj: K8sObject): Rollout {
  const spec = obj.spec ?? {};
  const status = obj.status ?? {};
  // Entries are as the API served them: a null one is skipped, not trusted.
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Array<Condition | null>) : [];
  const progress = conditions.find((c) => c?.type === 'Progressing');
  // The deadline condition is about the observed spec only: a newer spec gets a fresh deadline.
  if (progress?.status === 'False' && progress.reason === 'ProgressDeadlineExceeded') {
    return { state: 'failed', description: DEADLINE_EXCEEDED };
  }
  const replicas = count(spec.replicas, 1);
  const updated = count(status.updatedReplicas);
  const total = count(status.replicas);
  const available = count(status.availableReplicas);
  // A paused Deployment rolls nothing out until resumed: not progressing, so nothing re-checks it meanwhile.
  const waiting = spec.paused === true ? (what: string): Rollout => ({ state: 'paused', description: `${PAUSED}: ${what}` }) : progressing;
  if (updated < replicas) return waiting(`${updated}/${replicas} replicas updated`);
  if (total > updated) return waiting(`${plural(total - updated, 'old replica')} pending termination`);
  if (available < replicas) return waiting(`${available}/${replicas} replicas available`);
  return complete(replicas === 0 ? 'scaled to zero' : `rollout complete: ${plural(replicas, 'replica')} available`);
}

function statefulSetRollout(obj: K8sObject): Rollout {
  const status = obj.status ?? {};
  const { type, partition } = updateStrategy(obj);
  if (type === 'OnDelete') return complete('OnDelete strategy: pods update when deleted');
  const replicas = count(obj.spec?.replicas, 1);
  if (replicas === 0) return complete('scaled to zero');
  const updated = count(status.updatedReplicas);
  const ready = count(status.readyReplicas);
  if (partition > 0) {
    // Only ordinals >= partition move to the update revision; the others stay on the current one
    // by design, so currentRevision never catches up and is not the test.
    const target = Math.max(0, replicas - partition);
    if (updated < target) return progressing(`${updated}/${target} replicas updated (partition ${partition})`);
  } else if (status.currentRevision !== status.updateRevision) {
    return progressing(`${updated}/${replicas} replicas updated`);
  }
  if (ready < replicas) return progressing(`${ready}/${replicas} replicas ready`);
  return complete(
    partition > 0
      ? `partitioned rollout complete: ${Math.max(0, replicas - partition)}/${replicas} replicas updated`
      : `rollout complete: ${plural(replicas, 'replica')} ready`,
  );
}

function daemonSetRollout(obj: K8sObject): Rollout {
  const status = obj.status ?? {};
  if (updateStrategy(obj).type === 'OnDelete') return complete('OnDelete strategy: pods update when deleted');
  const desired = count(status.desiredNumberScheduled);
  const updated = count(status.updatedNumberScheduled);
  const available = count(status.numberAvailable);
  if (desired === 0) return complete('no nodes to run on');
  if (updated < desired) return progressing(`${updated}/${desired} pods updated`);
  if (available < desired) return progressing(`${available}/${desired} pods available`);
  return complete(`rollout complete: ${plural(desired, 'pod')} available`);
}

/**
 * Judges the rollout of a Deployment, StatefulSet or DaemonSet from its spec and status, with the
 * rules `kubectl rollout status` applies. Nothing counts until the controller has observed the latest
 * generation; then `spec.replicas: 0` (or a DaemonSet with no nodes) is complete, and an `OnDelete`
 * update strategy is complete as soon as observed (pods only change when someone deletes them).
 */
export function rolloutOf(kind: RolloutKind, obj: K8sObject): Rollout {
  if (!observed(obj)) return progressing(NOT_OBSERVED);
  switch (kind) {
    case 'Deployment':
      return deploymentRollout(obj);
    case 'StatefulSet':
      return statefulSetRollout(obj);
    case 'DaemonSet':
      return daemonSetRollout(obj);
  }
}
