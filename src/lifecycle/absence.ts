/**
 * When a workload's deployments turn `inactive` because what they describe is gone: its Flux
 * source was deleted, it left the source's inventory, or the workload itself disappeared (also
 * when its namespace was deleted). A single read is never enough (an API blip, a Flux object
 * being replaced): the absence must be seen by at least two consecutive reads and last for a
 * grace period.
 */
import type { SourceRef } from '../flux/k8s-objects.js';

/** Default `CLEANUP_GRACE`: how long something must have been missing before its deployments end. */
export const CLEANUP_GRACE_MS = 15_000;
/** Consecutive reads that must agree something is missing. */
export const REQUIRED_CONFIRMATIONS = 2;

/** How long, and by how many consecutive reads, something has been seen missing. */
export interface Absence {
  /** Time (ms since the epoch) of the first read of the current streak that found it missing. */
  firstMissingAt: number;
  /** Consecutive reads that found it missing, this streak. */
  confirmations: number;
}

/**
 * Records one more read that found it missing. A read that finds it present ends the streak:
 * the caller then forgets the absence (stores `undefined`), and the next miss starts over.
 */
export function observeMissing(prev: Absence | undefined, now: number): Absence {
  return prev ? { firstMissingAt: prev.firstMissingAt, confirmations: prev.confirmations + 1 } : { firstMissingAt: now, confirmations: 1 };
}

/**
 * The absence is confirmed: at least two consecutive reads agree, and the grace period has
 * passed since the first of them. Both are needed: two quick reads inside one blip prove
 * nothing, and one read after a long silence may be the blip itself.
 */
export function shouldDeactivate(a: Absence, now: number, graceMs: number = CLEANUP_GRACE_MS): boolean {
  return a.confirmations >= REQUIRED_CONFIRMATIONS && now - a.firstMissingAt >= graceMs;
}

/** Why a workload's deployments end. */
export type Gone =
  | { kind: 'source_deleted'; source: SourceRef }
  | { kind: 'pruned'; source: SourceRef }
  | { kind: 'workload_gone'; workload: { kind: string; namespace: string; name: string } }
  /** The workload is gone because its whole namespace is (deleted, or being deleted). */
  | { kind: 'namespace_gone'; workload: { kind: string; namespace: string; name: string } };

/**
 * The `inactive` status description for a reason, e.g. "Flux Kustomization apps/web was deleted",
 * "namespace preview-42 was deleted (with Deployment web)".
 */
export function goneDescription(gone: Gone): string {
  switch (gone.kind) {
    case 'source_deleted':
      return `Flux ${gone.source.kind} ${gone.source.namespace}/${gone.source.name} was deleted`;
    case 'pruned':
      return `removed from the inventory of ${gone.source.kind} ${gone.source.namespace}/${gone.source.name}`;
    case 'workload_gone':
      return `${gone.workload.kind} ${gone.workload.namespace}/${gone.workload.name} no longer exists`;
    case 'namespace_gone':
      return `namespace ${gone.workload.namespace} was deleted (with ${gone.workload.kind} ${gone.workload.name})`;
  }
}
