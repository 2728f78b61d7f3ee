/**
 * Builders for apps/v1 workloads and core objects, shaped like what kube-apiserver serves
 * (defaulted specs, complete rollout status unless told otherwise).
 */
import type { KubeObject } from './fake-kube/store.js';
import { condition, templateHash, uidFor } from './kube-meta.js';

export interface ContainerSpec {
  name: string;
  image: string;
}

export interface WorkloadOptions {
  namespace: string;
  name: string;
  containers: ContainerSpec[];
  initContainers?: ContainerSpec[];
  annotations?: Record<string, string>;
  podAnnotations?: Record<string, string>;
  labels?: Record<string, string>;
  /** Pod template `imagePullSecrets` (Secret names). */
  imagePullSecrets?: string[];
  /** Pod template `serviceAccountName`. */
  serviceAccountName?: string;
  replicas?: number;
  generation?: number;
  /** Overrides merged over the computed status (e.g. { observedGeneration: 1, readyReplicas: 0 }). */
  status?: Record<string, unknown>;
}

export interface DeploymentOptions extends WorkloadOptions {
  /** complete (default), progressing (new ReplicaSet rolling out) or failed (deadline exceeded). */
  rollout?: 'complete' | 'progressing' | 'failed';
}

function container(c: ContainerSpec) {
  return {
    image: c.image,
    imagePullPolicy: c.image.endsWith(':latest') || !/[:@]/.test(c.image.split('/').pop()!) ? 'Always' : 'IfNotPresent',
    name: c.name,
    resources: {},
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

function selectorLabels(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': name };
}

function podTemplate(o: WorkloadOptions, extraLabels: Record<string, string> = {}) {
  return {
    metadata: {
      ...(o.podAnnotations ? { annotations: { ...o.podAnnotations } } : {}),
      labels: { ...selectorLabels(o.name), ...extraLabels },
    },
    spec: {
      containers: o.containers.map(container),
      dnsPolicy: 'ClusterFirst',
      ...(o.imagePullSecrets ? { imagePullSecrets: o.imagePullSecrets.map((name) => ({ name })) } : {}),
      ...(o.initContainers ? { initContainers: o.initContainers.map(container) } : {}),
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      ...(o.serviceAccountName ? { serviceAccount: o.serviceAccountName, serviceAccountName: o.serviceAccountName } : {}),
      terminationGracePeriodSeconds: 30,
    },
  };
}

function meta(kind: string, o: WorkloadOptions, annotations: Record<string, string> = {}) {
  const all = { ...annotations, ...o.annotations };
  return {
    ...(Object.keys(all).length ? { annotations: all } : {}),
    ...(o.generation !== undefined ? { generation: o.generation } : {}),
    labels: { ...selectorLabels(o.name), ...o.labels },
    name: o.name,
    namespace: o.namespace,
    uid: uidFor(kind, o.namespace, o.name),
  };
}

/** The hash the Deployment controller would put on this Deployment's current ReplicaSet. */
export function deploymentTemplateHash(dep: { spec?: Record<string, unknown> }): string {
  return templateHash(dep.spec?.template);
}

/** An apps/v1 Deployment with selector, template and (by default) a finished rollout. */
export function deployment(o: DeploymentOptions): KubeObject {
  const replicas = o.replicas ?? 1;
  const gen = o.generation ?? 1;
  const template = podTemplate(o);
  const rsName = `${o.name}-${templateHash(template)}`;
  const rollout = o.rollout ?? 'complete';
  const updated = rollout === 'complete' ? replicas : Math.max(0, replicas - 1);
  const progressing =
    rollout === 'complete'
      ? condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${rsName}" has successfully progressed.`)
      : rollout === 'progressing'
        ? condition('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${rsName}" is progressing.`)
        : condition('Progressing', 'False', 'ProgressDeadlineExceeded', `ReplicaSet "${rsName}" has timed out progressing.`);
  const available = condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.');
  const withUpdate = (c: ReturnType<typeof condition>) => ({ ...c, lastUpdateTime: c.lastTransitionTime });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('Deployment', o, { 'deployment.kubernetes.io/revision': '1' }),
    spec: {
      progressDeadlineSeconds: 600,
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: selectorLabels(o.name) },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
      template,
    },
    status: {
      availableReplicas: replicas,
      conditions: [withUpdate(available), withUpdate(progressing)],
      observedGeneration: gen,
      readyReplicas: replicas,
      replicas: rollout === 'complete' ? replicas : replicas + 1,
      updatedReplicas: updated,
      ...(rollout !== 'complete' ? { unavailableReplicas: 1 } : {}),
      ...o.status,
    },
  };
}

/** The part of a pod template a ReplicaSet copies and labels. */
interface PodTemplateLabels {
  metadata?: { labels?: Record<string, string> };
}

/** The current apps/v1 ReplicaSet of a Deployment, controlled by it through an ownerReference. */
export function replicaSet(o: { ownerDeployment: KubeObject; replicas?: number; status?: Record<string, unknown> }): KubeObject {
  const dep = o.ownerDeployment;
  const depSpec = (dep.spec ?? {}) as { replicas?: number; template?: PodTemplateLabels };
  const hash = deploymentTemplateHash(dep);
  const replicas = o.replicas ?? depSpec.replicas ?? 1;
  const template = structuredClone<PodTemplateLabels>(depSpec.template ?? {});
  template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, 'pod-template-hash': hash } };
  const name = `${dep.metadata.name}-${hash}`;
  const namespace = dep.metadata.namespace ?? 'default';
  const ownerRef = {
    apiVersion: 'apps/v1',
    blockOwnerDeletion: true,
    controller: true,
    kind: 'Deployment',
    name: dep.metadata.name,
    uid: dep.metadata.uid ?? uidFor('Deployment', namespace, dep.metadata.name),
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(replicas),
        'deployment.kubernetes.io/max-replicas': String(replicas + Math.ceil(replicas * 0.25)),
        'deployment.kubernetes.io/revision': dep.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '1',
      },
      generation: 1,
      labels: { ...template.metadata.labels },
      name,
      namespace,
      ownerReferences: [ownerRef],
      uid: uidFor('ReplicaSet', namespace, name),
    },
    spec: {
      replicas,
      selector: { matchLabels: { ...template.metadata.labels } },
      template,
    },
    status: {
      availableReplicas: replicas,
      fullyLabeledReplicas: replicas,
      observedGeneration: 1,
      readyReplicas: replicas,
      replicas,
      ...o.status,
    },
  };
}

/** An apps/v1 StatefulSet with a finished rolling update by default. */
export function statefulSet(o: WorkloadOptions): KubeObject {
  const replicas = o.replicas ?? 1;
  const template = podTemplate(o);
  const revision = `${o.name}-${templateHash(template)}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta('StatefulSet', o),
    spec: {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      podManagementPolicy: 'OrderedReady',
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: selectorLabels(o.name) },
      serviceName: o.name,
      template,
      updateStrategy: { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' },
    },
    status: {
      availableReplicas: replicas,
      collisionCount: 0,
      currentReplicas: replicas,
      currentRevision: revision,
      observedGeneration: o.generation ?? 1,
      readyReplicas: replicas,
      replicas,
      updateRevision: revision,
      updatedReplicas: replicas,
      ...o.status,
    },
  };
}

/** An apps/v1 DaemonSet; `replicas` is the number of nodes it runs on. */
export function daemonSet(o: WorkloadOptions): KubeObject {
  const nodes = o.replicas ?? 3;
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { ...meta('DaemonSet', o), annotations: { 'deprecated.daemonset.template.generation': '1', ...o.annotations } },
    spec: {
      revisionHistoryLimit: 10,
      selector: { matchLabels: selectorLabels(o.name) },
      template: podTemplate(o),
      updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 }, type: 'RollingUpdate' },
    },
    status: {
      currentNumberScheduled: nodes,
      desiredNumberScheduled: nodes,
      numberAvailable: nodes,
      numberMisscheduled: 0,
      numberReady: nodes,
      observedGeneration: o.generation ?? 1,
      updatedNumberScheduled: nodes,
      ...o.status,
    },
  };
}

/** An active v1 Namespace. */
export function namespace(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { labels: { 'kubernetes.io/metadata.name': name }, name, uid: uidFor('Namespace', '', name) },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}
