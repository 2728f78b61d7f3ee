/** The Kubernetes adapter's types: what it reads and the reader's interface (the object shapes are flux/k8s-objects.ts). */
import type { Condition, FluxKind, K8sObject, ObjectMeta, SourceRef } from '../flux/k8s-objects.js';
import type { LabelSelector } from '../flux/label-selector.js';

export type { Condition, FluxKind, K8sObject, ObjectMeta };

/** Workload kinds the bridge reads from an inventory. */
export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'ReplicaSet';

/** Kinds read to discover a preview's URL: what routes traffic, and the Services it routes to. */
export type RoutingKind = 'Ingress' | 'HTTPRoute' | 'Service';

/** The parts of a v1 Secret the bridge reads (only Secrets named by an opted-in workload). */
export interface SecretView {
  type: string;
  /** Values base64-encoded, as the API serves them. */
  data: Record<string, string>;
}

/** The parts of a v1 Pod the bridge reads: which image each container runs. */
export interface PodView {
  name: string;
  /** creationTimestamp in ms since the epoch; 0 when absent. */
  createdAt: number;
  labels: Record<string, string>;
  /** deletionTimestamp is set. */
  terminating: boolean;
  containers: Array<{ name: string; image: string }>;
  /** `status.containerStatuses`: imageID is '' until the image is pulled. */
  containerStatuses: Array<{ name: string; imageID: string }>;
}

/** The few Kubernetes reads the bridge needs; tests swap in the fake API server behind the real client. */
export interface KubeReader {
  /** The Flux object, or null when it does not exist (404). */
  getFluxObject(ref: SourceRef): Promise<K8sObject | null>;
  /** Every object of a Flux kind in the given namespaces (all namespaces when the list is empty). */
  listFluxObjects(kind: FluxKind, namespaces: readonly string[]): Promise<K8sObject[]>;
  /** An apps/v1 workload, or null when it does not exist (404). */
  getWorkload(kind: WorkloadKind, namespace: string, name: string): Promise<K8sObject | null>;
  /** Every apps/v1 workload of a kind in a namespace (one paged list call). */
  listWorkloads(kind: WorkloadKind, namespace: string): Promise<K8sObject[]>;
  /**
   * An Ingress (networking.k8s.io/v1), HTTPRoute (gateway.networking.k8s.io/v1) or Service, with its
   * kind set; null when it does not exist (404); a 403 (no RBAC) is thrown as KubeError.
   */
  getRoutingObject(kind: RoutingKind, namespace: string, name: string): Promise<K8sObject | null>;
  /** Every object of a routing kind in a namespace, as getRoutingObject gives them (one paged list call). */
  listRoutingObjects(kind: RoutingKind, namespace: string): Promise<K8sObject[]>;
  /** A Namespace, or null when it does not exist (404): read only after a workload was not found, to say why. */
  getNamespace(name: string): Promise<K8sObject | null>;
  /** A Secret, or null when it does not exist (404); a 403 (no RBAC) is thrown as KubeError. */
  getSecret(namespace: string, name: string): Promise<SecretView | null>;
  /** A ConfigMap's `data`, or null when it does not exist (404): only a remote Flux object's `spec.kubeConfig.configMapRef`. */
  getConfigMap?(namespace: string, name: string): Promise<Record<string, string> | null>;
  /** The names in a ServiceAccount's `imagePullSecrets`, or null when it does not exist (404). */
  getServiceAccountPullSecrets(namespace: string, name: string): Promise<string[] | null>;
  /**
   * Pods of a namespace that a workload's `spec.selector` selects (none when it selects nothing
   * usable), or every pod of the namespace when the selector is undefined.
   */
  listPods(namespace: string, selector: LabelSelector | undefined): Promise<PodView[]>;
}
