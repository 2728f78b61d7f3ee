import type { SourceRef } from '../flux/k8s-objects.js';
import { goneDescription, observeMissing, shouldDeactivate, type Absence, type Gone } from '../lifecycle/absence.js';
import type { DeploymentRow } from '../store/deployment-store.js';

/** What one read of a source said about its workloads (`null`: the source itself is gone). */
export interface SourceSighting {
  /** Workloads (`Kind/ns/name`) in the inventory that exist. */
  present: ReadonlySet<string>;
  /** Workloads in the inventory that the API says do not exist. */
  missing: ReadonlySet<string>;
  /** Namespaces of missing workloads that are gone too: their workloads' deployments end for that reason. */
  namespacesGone: ReadonlySet<string>;
}

/** One workload that left its source: one more read that finds it missing, or the end of its deployments. */
export type CleanupStep =
  | { kind: 'wait'; absenceKey: string; absence: Absence }
  | { kind: 'deactivate'; absenceKey: string; workload: string; rows: readonly DeploymentRow[]; description: string };

/** What cleanup does for one source, in order. */
export interface CleanupPlan {
  /** The source's absences are kept under keys with this prefix; those not in `keep` are forgotten (seen again, or done). */
  prefix: string;
  keep: ReadonlySet<string>;
  steps: readonly CleanupStep[];
  /** Some absence still waits for its confirmation: the source should be looked at again after the grace period. */
  waiting: boolean;
}

/** What the cleanup decision needs: the read, the cache's live deployments of the source and its recorded absences. */
export interface CleanupInput {
  ref: SourceRef;
  sighting: SourceSighting | null;
  /** The source's deployments that their forge shows as live or unfinished (the cache). */
  active: readonly DeploymentRow[];
  /** The absence recorded under a key, if any. */
  absenceOf: (key: string) => Absence | undefined;
  now: number;
  graceMs: number;
}

type Workload = DeploymentRow['origin']['workload'];

const workloadKey = (r: DeploymentRow) => `${r.origin.workload.kind}/${r.origin.workload.namespace}/${r.origin.workload.name}`;
const sourceKey = (s: SourceRef) => `${s.kind}/${s.namespace}/${s.name}`;

/** Why the deployments of a workload that left the source end. */
function goneOf(ref: SourceRef, sighting: SourceSighting | null, key: string, workload: Workload): Gone {
  if (sighting === null) return { kind: 'source_deleted', source: ref };
  if (!sighting.missing.has(key)) return { kind: 'pruned', source: ref };
  return sighting.namespacesGone.has(workload.namespace) ? { kind: 'namespace_gone', workload } : { kind: 'workload_gone', workload };
}

/**
 * Decides the end of the live deployments of workloads that left a source (deleted source, pruned
 * from the inventory, workload gone): each such workload gets one more read that finds it missing,
 * and its deployments end once two consecutive reads agree and the grace period has passed. Pure.
 */
export function planCleanup(i: CleanupInput): CleanupPlan {
  const prefix = `${sourceKey(i.ref)}|`;
  const left = new Map<string, { workload: Workload; rows: DeploymentRow[] }>();
  for (const row of i.active) {
    const key = workloadKey(row);
    if (i.sighting?.present.has(key)) continue;
    const entry = left.get(key);
    if (entry) entry.rows.push(row);
    else left.set(key, { workload: row.origin.workload, rows: [row] });
  }
  const steps: CleanupStep[] = [];
  for (const [key, { workload, rows }] of left) {
    const absenceKey = prefix + key;
    const absence = observeMissing(i.absenceOf(absenceKey), i.now);
    if (shouldDeactivate(absence, i.now, i.graceMs)) {
      const description = goneDescription(goneOf(i.ref, i.sighting, key, workload));
      steps.push({ kind: 'deactivate', absenceKey, workload: key, rows, description });
    } else steps.push({ kind: 'wait', absenceKey, absence });
  }
  return {
    prefix,
    keep: new Set([...left.keys()].map((k) => prefix + k)),
    steps,
    waiting: steps.some((s) => s.kind === 'wait'),
  };
}
