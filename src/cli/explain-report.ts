import { derivePhase, type Phase } from '../flux/phase.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { K8sObject } from '../kube/kube-types.js';
import { desiredFor } from '../lifecycle/desired-state.js';
import type { ExplainForm } from '../forges/forge.js';
import { FLUX_BRANCH_ANNOTATION } from '../metadata/ref-tier.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { ResolvedSource } from '../reconcile/resolve-source.js';

/** What `explain` found for one Flux source, ready to print. */
export interface ExplainReport {
  source: SourceRef;
  found: boolean;
  phase?: Phase;
  lines: string[];
}

const REF_FROM = {
  annotation: 'the github-deployment-bridge.io/ref annotation',
  flux: `the Flux object's ${FLUX_BRANCH_ANNOTATION} annotation`,
} as const;

const OPT_IN_HINT = 'not opted in: annotate it github-deployment-bridge.io/auto-report: "true"';

/** Pure: turns a resolved source into the lines a person reads (what would be reported, or exactly why not). */
export function explainLines(
  source: SourceRef,
  obj: K8sObject | null,
  resolved: ResolvedSource | null,
  /** How the target's forge names what it would write (the registry's `explainForm`). */
  formOf: (t: ReportTarget) => ExplainForm,
  /** A remote Flux object's cluster and credentials, or why it cannot be read (undefined: the bridge's own cluster). */
  cluster?: { cluster: string; credentials: string } | { unavailable: string },
): ExplainReport {
  const title = `${source.kind} ${source.namespace}/${source.name}`;
  if (obj && cluster && 'unavailable' in cluster) {
    const phase = derivePhase(obj);
    const lines = [`${title}: ${phase.kind} (${phase.reason})`, `  ${cluster.unavailable}: its workloads are not read anywhere else`];
    return { source, found: true, phase, lines };
  }
  if (!obj || !resolved)
    return {
      source,
      found: false,
      lines: [`${title}: not found in the cluster (nothing reported; live deployments of it are cleaned up)`],
    };
  const phase = derivePhase(obj);
  const lines = [
    `${title}: ${phase.kind} (${phase.reason}${phase.message ? `: ${phase.message}` : ''})${phase.revision ? ` at ${phase.revision}` : ''}`,
  ];
  if (cluster && 'cluster' in cluster) lines.push(`  remote cluster ${cluster.cluster}, read with ${cluster.credentials}`);
  const noInventory = resolved.skips.find((s) => s.code === 'no_inventory');
  if (noInventory) lines.push(`  ${noInventory.reason}`);
  else if (resolved.workloads.length === 0 && resolved.missing.size === 0)
    lines.push('  no Deployment, StatefulSet or DaemonSet in its inventory: nothing to report');
  for (const key of resolved.missing) lines.push(`  ${key}: in the inventory but not in the cluster`);
  for (const w of resolved.workloads) {
    if (!w.optedIn) {
      lines.push(`  ${w.key}: ${OPT_IN_HINT}`);
      continue;
    }
    const desired = desiredFor({ phase, rollout: w.rollout, workloadKey: w.key });
    lines.push(`  ${w.key}: rollout ${w.rollout.state} (${w.rollout.description})`);
    for (const { target: t, pullRequest } of w.candidates) {
      const form = formOf(t);
      lines.push(
        `    container ${t.container} (${t.image}) → ${form.where}` +
          `${t.productionEnvironment ? ' [production]' : ''}${t.transientEnvironment ? ' [transient]' : ''}`,
      );
      lines.push(`      would be ${desired.state ?? 'left as it is'}: ${desired.description}`);
      if (t.environmentUrl)
        lines.push(`      ${form.urlField} ${t.environmentUrl}${w.route?.url === t.environmentUrl ? ` (from ${w.route.from})` : ''}`);
      if (t.logUrl) lines.push(`      log_url ${t.logUrl}`);
      if (t.ref) lines.push(`      ref ${t.ref.ref}${t.ref.tag ? ' (a tag)' : ''} (from ${REF_FROM[t.ref.from]})`);
      if (t.tier) lines.push(`      tier ${t.tier}`);
      if (pullRequest != null)
        lines.push(
          'number' in pullRequest
            ? `      pull request #${pullRequest.number} comment row (${pullRequest.why}), shown once the forge confirms commit ${t.sha.slice(0, 7)} is on it (its head, or on its head branch)`
            : `      no pull request comment row: ${pullRequest.problem}`,
        );
      for (const warning of t.warnings) lines.push(`      warning: ${warning}`);
    }
    for (const s of w.skips) lines.push(`    container ${s.container}: not reported: ${s.reason}`);
  }
  return { source, found: true, phase, lines };
}
