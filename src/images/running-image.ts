/** What a workload actually runs (pure): the digest its current pods report for one container. */
import type { PodView } from '../kube/kube-types.js';
import { parseImageId, type RunningImage } from '../oci/image-id.js';

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
