/**
 * Builders for Flux objects shaped like what kustomize-controller and helm-controller (Flux 2.x)
 * leave in the cluster: spec defaults, conditions, inventory, revisions, Helm history.
 * Workload and namespace builders live in workload-objects.ts and are re-exported here.
 */
import type { Condition } from '../../src/kube/kube-types.js';
import type { KubeObject } from './fake-kube/store.js';
import { commitOf, condition, digestOf, kubeTime, uidFor } from './kube-meta.js';

export { daemonSet, deployment, deploymentTemplateHash, namespace, replicaSet, statefulSet } from './workload-objects.js';
export type { ContainerSpec, DeploymentOptions, WorkloadOptions } from './workload-objects.js';

/** One object the Flux object applied; namespace '' for cluster-scoped, group '' for core. */
export interface InventoryRef {
  namespace: string;
  name: string;
  group: string;
  kind: string;
  /** API version of the object (default v1). */
  version?: string;
}

export interface ConditionSpec {
  ready: Condition['status'];
  reason: string;
  message: string;
}

/** Extra condition; true means the controller's usual reason and message. */
export type ExtraCondition = boolean | { reason?: string; message?: string };

interface FluxOptions {
  namespace?: string;
  name: string;
  generation?: number;
  observedGeneration?: number;
  reconciling?: ExtraCondition;
  stalled?: ExtraCondition;
  /** Applied objects; null leaves status.inventory out (never applied). */
  inventory?: InventoryRef[] | null;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  /** `spec.kubeConfig`: a remote cluster (`{ secretRef: { name, key? } }` or `{ configMapRef: { name } }`). */
  kubeConfig?: Record<string, unknown>;
}

export interface KustomizationOptions extends FluxOptions {
  conditions?: ConditionSpec;
  /** Source revision, e.g. main@sha1:<40 hex>. */
  revision?: string;
  /** Defaults to revision when Ready is True, unset otherwise. */
  lastAppliedRevision?: string;
  path?: string;
}

/** The inventory format both controllers write: id "<ns>_<name>_<group>_<Kind>", v "<version>". */
export function inventoryOf(refs: readonly InventoryRef[]): { entries: Array<{ id: string; v: string }> } {
  return { entries: refs.map((r) => ({ id: `${r.namespace}_${r.name}_${r.group}_${r.kind}`, v: r.version ?? 'v1' })) };
}

function extra(type: string, spec: ExtraCondition | undefined, reason: string, message: string, gen: number): Condition[] {
  if (!spec) return [];
  const o = spec === true ? {} : spec;
  return [condition(type, 'True', o.reason ?? reason, o.message ?? message, gen)];
}

function fluxMeta(kind: string, o: FluxOptions, namespace: string) {
  return {
    ...(o.annotations ? { annotations: { ...o.annotations } } : {}),
    finalizers: ['finalizers.fluxcd.io'],
    ...(o.generation !== undefined ? { generation: o.generation } : {}),
    ...(o.labels ? { labels: { ...o.labels } } : {}),
    name: o.name,
    namespace,
    uid: uidFor(kind, namespace, o.name),
  };
}

/** A kustomize.toolkit.fluxcd.io/v1 Kustomization as kustomize-controller leaves it. */
export function kustomization(o: KustomizationOptions): KubeObject {
  const namespace = o.namespace ?? 'flux-system';
  const revision = o.revision ?? `main@sha1:${commitOf(`${namespace}/${o.name}`)}`;
  const observed = o.observedGeneration ?? o.generation ?? 1;
  const c = o.conditions ?? { ready: 'True', reason: 'ReconciliationSucceeded', message: `Applied revision: ${revision}` };
  const lastApplied = o.lastAppliedRevision ?? (c.ready === 'True' ? revision : undefined);
  const conditions = [
    ...extra('Reconciling', o.reconciling, 'Progressing', 'Reconciliation in progress', observed),
    ...extra('Stalled', o.stalled, 'BuildFailed', 'kustomization path not found', observed),
    condition('Ready', c.ready, c.reason, c.message, observed),
  ];
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: fluxMeta('Kustomization', o, namespace),
    spec: {
      force: false,
      interval: '10m0s',
      path: o.path ?? `./apps/${o.name}`,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      timeout: '5m0s',
      wait: true,
      ...(o.kubeConfig ? { kubeConfig: o.kubeConfig } : {}),
    },
    status: {
      conditions,
      ...(o.inventory === null ? {} : { inventory: inventoryOf(o.inventory ?? []) }),
      ...(lastApplied ? { lastAppliedRevision: lastApplied } : {}),
      lastAttemptedRevision: revision,
      observedGeneration: observed,
    },
  };
}

/** One Helm release revision in status.history (newest first). */
export interface HistoryEntry {
  chartVersion: string;
  appVersion?: string;
  /** Helm release status: deployed, failed, superseded, pending-upgrade, ... */
  status: string;
  version?: number;
  digest?: string;
}

export interface HelmReleaseOptions extends FluxOptions {
  chartName?: string;
  chartVersion?: string;
  appVersion?: string;
  /** The Helm action of the last attempt (default install when generation is 1, else upgrade). */
  action?: 'install' | 'upgrade';
  conditions?: ConditionSpec;
  /** The Released condition; defaults to mirror Ready. */
  released?: ConditionSpec;
  /** Adds a Remediated condition (e.g. RollbackSucceeded after UpgradeFailed). */
  remediated?: ConditionSpec;
  /** status.history, newest first; defaults to one entry for the current chart. */
  history?: HistoryEntry[];
  /** Namespace the release installs into (spec.targetNamespace); defaults to the object's. */
  targetNamespace?: string;
}

/** A helm.toolkit.fluxcd.io/v2 HelmRelease as helm-controller leaves it (with the Flux 2.8 inventory). */
export function helmRelease(o: HelmReleaseOptions): KubeObject {
  const namespace = o.namespace ?? 'flux-system';
  const chartName = o.chartName ?? 'podinfo';
  const chartVersion = o.chartVersion ?? '6.7.1';
  const appVersion = o.appVersion ?? chartVersion;
  const observed = o.observedGeneration ?? o.generation ?? 1;
  const action = o.action ?? ((o.generation ?? 1) > 1 ? 'upgrade' : 'install');
  const releaseNs = o.targetNamespace ?? namespace;
  const history = o.history ?? [{ chartVersion, appVersion, status: 'deployed' }];
  const releaseVersion = history[0]?.version ?? history.length;
  const Action = action === 'install' ? 'Install' : 'Upgrade';
  const c = o.conditions ?? {
    ready: 'True',
    reason: `${Action}Succeeded`,
    message: `Helm ${action} succeeded for release ${releaseNs}/${o.name}.v${releaseVersion} with chart ${chartName}@${chartVersion}`,
  };
  const released = o.released ?? { ready: c.ready, reason: c.reason, message: c.message };
  const configDigest = digestOf(`values:${namespace}/${o.name}`);
  const conditions = [
    ...extra('Reconciling', o.reconciling, 'Progressing', `Running '${action}' action with timeout of 5m0s`, observed),
    ...extra('Stalled', o.stalled, 'RetriesExceeded', 'Failed to upgrade after 1 attempt(s)', observed),
    condition('Ready', c.ready, c.reason, c.message, observed),
    condition('Released', released.ready, released.reason, released.message, observed),
    ...(o.remediated ? [condition('Remediated', o.remediated.ready, o.remediated.reason, o.remediated.message, observed)] : []),
  ];
  const now = kubeTime();
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: fluxMeta('HelmRelease', o, namespace),
    spec: {
      chart: {
        spec: {
          chart: chartName,
          reconcileStrategy: 'ChartVersion',
          sourceRef: { kind: 'HelmRepository', name: chartName },
          version: chartVersion,
        },
      },
      interval: '10m0s',
      ...(o.kubeConfig ? { kubeConfig: o.kubeConfig } : {}),
      ...(o.targetNamespace ? { targetNamespace: o.targetNamespace } : {}),
    },
    status: {
      conditions,
      helmChart: `${namespace}/${namespace}-${o.name}`,
      history: history.map((h, i) => ({
        appVersion: h.appVersion ?? h.chartVersion,
        chartName,
        chartVersion: h.chartVersion,
        configDigest,
        digest: h.digest ?? digestOf(`${releaseNs}/${o.name}@${h.chartVersion}#${i}`),
        firstDeployed: now,
        lastDeployed: now,
        name: o.name,
        namespace: releaseNs,
        status: h.status,
        version: h.version ?? history.length - i,
      })),
      ...(o.inventory === null ? {} : { inventory: inventoryOf(o.inventory ?? []) }),
      lastAttemptedConfigDigest: configDigest,
      lastAttemptedGeneration: o.generation ?? 1,
      lastAttemptedReleaseAction: action,
      lastAttemptedRevision: chartVersion,
      observedGeneration: observed,
      storageNamespace: releaseNs,
    },
  };
}
