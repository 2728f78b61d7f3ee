/**
 * Structural view of the Kubernetes objects the bridge reads (plain JSON as served by the API), and how a
 * Flux object is named: the vocabulary of the pure core (flux/, lifecycle/, metadata/); kube/ reads them.
 */

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid?: string; controller?: boolean }>;
  deletionTimestamp?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** The two Flux kinds whose reconciliations the bridge reports. */
export type FluxKind = 'Kustomization' | 'HelmRelease';

/** Identifies one Flux object: the unit of work of the queue. */
export interface SourceRef {
  kind: FluxKind;
  namespace: string;
  name: string;
}
