import type { Logger } from 'pino';
import type { SourceRef } from '../kube/kube-types.js';
import { goneDescription, observeMissing, shouldDeactivate, type Gone } from '../lifecycle/absence.js';
import type { Publisher } from './deployment-publisher.js';
import type { AbsenceStore } from '../store/absence-store.js';
import type { DeploymentRow, DeploymentStore } from '../store/deployment-store.js';

export interface CleanupDeps {
  deployments: DeploymentStore;
  absences: AbsenceStore;
  publisher: Pick<Publisher, 'deactivate'>;
  graceMs: number;
  log: Logger;
  now: () => number;
}

/** What one read of a source said about its workloads (`null`: the source itself is gone). */
export interface SourceSighting {
  /** Workloads (`Kind/ns/name`) in the inventory that exist. */
  present: ReadonlySet<string>;
  /** Workloads in the inventory that the API says do not exist. */
  missing: ReadonlySet<string>;
}

const workloadKey = (r: DeploymentRow) => `${r.origin.workload.kind}/${r.origin.workload.namespace}/${r.origin.workload.name}`;
const sourceKey = (s: SourceRef) => `${s.kind}/${s.namespace}/${s.name}`;

/**
 * Ends the active deployments of workloads that left a source (deleted source, pruned from the
 * inventory, workload gone) once two consecutive reads agree and the grace period has passed.
 * Returns true while some absence is still waiting for its confirmation: re-check the source then.
 */
export async function sweepSource(deps: CleanupDeps, ref: SourceRef, sighting: SourceSighting | null): Promise<boolean> {
  const prefix = `${sourceKey(ref)}|`;
  const byWorkload = new Map<string, DeploymentRow[]>();
  for (const row of deps.deployments.activeForSource(ref)) {
    const key = workloadKey(row);
    if (sighting?.present.has(key)) continue;
    byWorkload.set(key, [...(byWorkload.get(key) ?? []), row]);
  }
  deps.absences.retain(prefix, new Set([...byWorkload.keys()].map((k) => prefix + k)));
  let waiting = false;
  for (const [key, rows] of byWorkload) {
    const absence = observeMissing(deps.absences.get(prefix + key), deps.now());
    if (!shouldDeactivate(absence, deps.now(), deps.graceMs)) {
      deps.absences.put(prefix + key, absence);
      waiting = true;
      continue;
    }
    const w = rows[0]!.origin.workload;
    const gone: Gone =
      sighting === null
        ? { kind: 'source_deleted', source: ref }
        : sighting.missing.has(key)
          ? { kind: 'workload_gone', workload: w }
          : { kind: 'pruned', source: ref };
    const description = goneDescription(gone);
    for (const row of rows) await deps.publisher.deactivate(row, description);
    deps.absences.clear(prefix + key);
    deps.log.info({ workload: key, deployments: rows.length, reason: description }, 'deployments ended: workload gone');
  }
  return waiting;
}
