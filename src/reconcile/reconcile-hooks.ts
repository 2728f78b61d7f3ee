/**
 * What a feature may do at the reconcile's steps (pull request comments, the DORA figures' environment kinds). The
 * spine calls every feature's hooks in their order and knows none of them.
 */
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { DeploymentRow } from '../store/deployment-store.js';
import type { PublishStep } from './reconcile-plan.js';

/** Told the state the forge accepted for a target; what it returns makes the target a skip (reported, but partly left out). */
export type AfterPublish = (state: DesiredState) => { code: string; reason: string } | undefined;

export interface ReconcileHooks {
  /** Before a target goes to its forge (never throws); what it returns is called once the forge accepted it. */
  beforePublish?(step: PublishStep): Promise<AfterPublish | undefined> | AfterPublish | undefined;
  /** A deployment whose workload is gone was ended on its forge. */
  retired?(row: DeploymentRow): void;
  /** The reconcile's writes are done (published and swept): what a hook held back may go now. */
  settle?(): void;
}

/** Each hook's `beforePublish`, in order; the answers to call after the publish. */
export async function beforePublish(hooks: readonly ReconcileHooks[] | undefined, step: PublishStep): Promise<AfterPublish[]> {
  const after: AfterPublish[] = [];
  for (const h of hooks ?? []) {
    const a = await h.beforePublish?.(step);
    if (a !== undefined) after.push(a);
  }
  return after;
}
