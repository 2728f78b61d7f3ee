import { KubeError, RegistryError, errorMessage, isRetryable } from '../common/errors.js';
import { missingInventory, routingFromInventory, workloadsFromInventory } from '../flux/inventory.js';
import { fluxObjectDefaults } from '../flux/remote-cluster.js';
import type { ImageFactsSource } from '../images/image-facts.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { K8sObject, KubeReader } from '../kube/kube-types.js';
import { rolloutOf, type Rollout } from '../lifecycle/rollout.js';
import {
  bridgeAnnotations,
  isOptedIn,
  needsLabels,
  reportedContainers,
  resolveTarget,
  type Defaults,
  type ImageFacts,
  type ReportTarget,
  type SourceInfo,
} from '../metadata/resolve-target.js';
import type { Metrics } from '../common/metrics.js';
import { pullRequestFor, pullRequestOf, type PullRequestResolution } from '../metadata/pull-request.js';
import { routeUrl, type DiscoveredUrl } from '../metadata/route-url.js';
import type { Origin } from '../store/deployment-store.js';
import type { Skip } from '../store/source-store.js';
import { readWorkload, templateContainers, templateLabels, type ReadWorkload } from './read-workload.js';
import { routingObjects, type RoutingObjects } from './routing-objects.js';

export interface ResolveDeps {
  kube: KubeReader;
  /** Running digests (from pods) and OCI labels (from registries, with the workload's credentials). */
  images: ImageFactsSource;
  defaults: Defaults;
  metrics: Metrics;
}

/** One container that resolved to a deployment on a forge. */
export interface Candidate {
  target: ReportTarget;
  origin: Origin;
  /** The pull request its comment row belongs to, and why (null: none named). */
  pullRequest?: PullRequestResolution;
}

/** One workload of a source's inventory, as far as the bridge is concerned. */
export interface ResolvedWorkload {
  /** `Kind/namespace/name`. */
  key: string;
  optedIn: boolean;
  rollout: Rollout;
  candidates: Candidate[];
  /** Why containers did not report (only when none of the workload's containers reported). */
  skips: Skip[];
  /** The URL found from a route to the workload's pods (when `environment-url` is not annotated). */
  route?: DiscoveredUrl;
}

/** What a source's inventory resolves to, without any forge call: shared by reconcile and explain. */
export interface ResolvedSource {
  workloads: ResolvedWorkload[];
  /** Inventory workloads that exist, and those the API says do not (cleanup needs both). */
  present: Set<string>;
  missing: Set<string>;
  /** Namespaces of missing workloads that are gone themselves (deleted or being deleted): cleanup says so. */
  namespacesGone: Set<string>;
  skips: Skip[];
  /** Transient failures (registry or Kubernetes outages): the source should be retried later. */
  retry: unknown[];
}

const keyOf = (w: { kind: string; namespace: string; name: string }) => `${w.kind}/${w.namespace}/${w.name}`;

/** Walks a Flux object's inventory to workloads and resolves each opted-in container's metadata. */
export async function resolveSource(deps: ResolveDeps, ref: SourceRef, obj: K8sObject): Promise<ResolvedSource> {
  const out: ResolvedSource = { workloads: [], present: new Set(), missing: new Set(), namespacesGone: new Set(), skips: [], retry: [] };
  const routing = routingObjects(deps.kube, routingFromInventory(obj.status));
  const namespaces = namespaceChecks(deps.kube);
  const noInventory = missingInventory(ref.kind, obj.status);
  // The Flux object's annotations name the branch of a preview (`event.toolkit.fluxcd.io/branch`).
  const source: SourceInfo = { ...ref, ...(obj.metadata.annotations ? { annotations: obj.metadata.annotations } : {}) };
  if (noInventory) out.skips.push({ source: ref, workload: ref, container: '', code: 'no_inventory', reason: noInventory });
  for (const wref of workloadsFromInventory(obj.status)) {
    const read = await readWorkload(deps.kube, wref);
    if ('ignored' in read) continue;
    if ('missing' in read) {
      out.missing.add(keyOf(wref));
      const nsGone = await namespaces.gone(wref.namespace);
      if (nsGone) out.namespacesGone.add(wref.namespace);
      const reason = nsGone ? `${read.missing}: namespace ${wref.namespace} is gone` : read.missing;
      out.skips.push({ source: ref, workload: wref, container: '', code: 'workload_missing', reason });
      continue;
    }
    const { workload, retry } = await resolveWorkload(deps, source, read.workload, routing, obj);
    out.present.add(workload.key);
    out.workloads.push(workload);
    out.skips.push(...workload.skips);
    out.retry.push(...retry);
  }
  return out;
}

/**
 * Whether a namespace is gone (not found, or being deleted), asked once per namespace and only after
 * a workload in it was not found: nothing more is read while every workload exists. A failed read
 * says nothing (the workload's own absence is reason enough for cleanup), so it counts as not gone.
 */
function namespaceChecks(kube: KubeReader): { gone(namespace: string): Promise<boolean> } {
  const asked = new Map<string, Promise<boolean>>();
  return {
    gone(namespace) {
      let answer = asked.get(namespace);
      if (answer === undefined) {
        answer = kube.getNamespace(namespace).then(
          (ns) => ns === null || ns.metadata.deletionTimestamp !== undefined,
          () => false,
        );
        asked.set(namespace, answer);
      }
      return answer;
    },
  };
}

/** One workload resolved, and the transient failures met on the way (its containers are skipped meanwhile). */
async function resolveWorkload(
  deps: ResolveDeps,
  source: SourceInfo,
  w: ReadWorkload,
  routing: RoutingObjects,
  fluxObject: K8sObject,
): Promise<{ workload: ResolvedWorkload; retry: unknown[] }> {
  const fluxAnnotations = fluxObject.metadata.annotations ?? {};
  const ref: SourceRef = { kind: source.kind, namespace: source.namespace, name: source.name };
  const meta = w.object.metadata;
  const workload = { kind: w.kind, namespace: meta.namespace ?? '', name: meta.name };
  const key = keyOf(workload);
  const rollout = rolloutOf(w.kind, w.object);
  // The Flux object's cluster, environment, production and transient annotations are defaults of the workload's own.
  const annotations = { ...fluxObjectDefaults(fluxObject), ...bridgeAnnotations(w.object) };
  if (!isOptedIn(annotations)) return { workload: { key, optedIn: false, rollout, candidates: [], skips: [] }, retry: [] };
  const route =
    annotations['environment-url'] === undefined
      ? routeUrl(
          await routing.read(),
          { namespace: workload.namespace, labels: templateLabels(w.object) },
          deps.defaults.routeScheme ?? 'https',
        )
      : undefined;
  const info = { ...workload, annotations, containers: templateContainers(w.object), ...(route ? { routeUrl: route.url } : {}) };
  const candidates: Candidate[] = [];
  const failed: Skip[] = [];
  const retry: unknown[] = [];
  const images = deps.images.forWorkload(w.object, deps.kube);
  const labelsNeeded = needsLabels(annotations);
  const pullRequest = pullRequestOf(fluxAnnotations, annotations);
  for (const container of reportedContainers(annotations, info.containers)) {
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
    const r = resolveTarget(source, info, container, facts, deps.defaults);
    if ('target' in r)
      candidates.push({
        target: r.target,
        origin: { source: ref, workload, container: container.name, image: container.image },
        // A pull request URL of another repository is refused (the number alone would name the deployment's own #N).
        pullRequest: pullRequestFor(pullRequest, r.target, deps.defaults.forges),
      });
    else failed.push({ source: ref, workload, container: container.name, code: r.code, reason: r.skip });
  }
  // A sidecar without usable metadata is dropped silently when another container reported.
  const skips = candidates.length === 0 ? failed : [];
  return { workload: { key, optedIn: true, rollout, candidates, skips, ...(route ? { route } : {}) }, retry };
}
