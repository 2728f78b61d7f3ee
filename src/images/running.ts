/**
 * What a workload actually runs (pure): the label selector of its pods, and the digest its current
 * pods report for one container.
 */
import type { PodView } from '../kube/types.js';
import { parseImageId, type RunningImage } from '../oci/image-id.js';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/**
 * `spec.selector` as a label-selector query string; undefined when it selects nothing usable
 * (absent or empty: listing every pod of the namespace would be wrong and costly).
 */
export function selectorString(selector: unknown): string | undefined {
  if (selector === null || typeof selector !== 'object') return undefined;
  const s = selector as LabelSelector;
  const terms: string[] = [];
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) {
    if (typeof v === 'string') terms.push(`${k}=${v}`);
  }
  for (const e of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') terms.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') terms.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') terms.push(e.key);
    else if (e.operator === 'DoesNotExist') terms.push(`!${e.key}`);
    else return undefined; // an operator we do not know: better no digest than the wrong pods
  }
  return terms.length > 0 ? terms.join(',') : undefined;
}

/**
 * The image a container of the workload's current pods runs: among pods that are not terminating
 * and whose container of that name has the template's image, the newest one that reports an
 * imageID. Pods of an older template (another image) never count.
 */
export function runningImage(pods: readonly PodView[], container: { name: string; image: string }): RunningImage | undefined {
  let best: { at: number; name: string; image: RunningImage } | undefined;
  for (const pod of pods) {
    if (pod.terminating) continue;
    if (!pod.containers.some((c) => c.name === container.name && c.image === container.image)) continue;
    const status = pod.containerStatuses.find((s) => s.name === container.name);
    const image = parseImageId(status?.imageID);
    if (image === undefined) continue;
    const newer = best === undefined || pod.createdAt > best.at || (pod.createdAt === best.at && pod.name > best.name);
    if (newer) best = { at: pod.createdAt, name: pod.name, image };
  }
  return best?.image;
}
