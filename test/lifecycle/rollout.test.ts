import t from 'tap';
import type { K8sObject } from '../../src/kube/kube-types.js';
import { DEADLINE_EXCEEDED, NOT_OBSERVED, PAUSED, rolloutOf, type Rollout, type RolloutKind } from '../../src/lifecycle/rollout.js';
import { condition } from '../harness/kube-meta.js';
import { daemonSet, deployment, statefulSet } from '../harness/workload-objects.js';

const base = { namespace: 'apps', name: 'web', containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.2.3' }] };

/** A StatefulSet mid-update: `updated` pods on the new revision, the rest on the old one. */
const stsUpdating = (replicas: number, updated: number, extra: Record<string, unknown> = {}) =>
  statefulSet({
    ...base,
    replicas,
    status: {
      currentRevision: 'web-7c9d5b8f6d',
      updateRevision: 'web-5f4b9d8c7b',
      updatedReplicas: updated,
      currentReplicas: replicas - updated,
      ...extra,
    },
  });

/** Sets `spec.updateStrategy` on a built object. */
const withStrategy = (obj: K8sObject, updateStrategy: Record<string, unknown>): K8sObject => ({
  ...obj,
  spec: { ...obj.spec, updateStrategy },
});

/** A Deployment with `spec.paused: true`. */
const pausedDeployment = (o: Parameters<typeof deployment>[0]): K8sObject => {
  const d = deployment(o);
  return { ...d, spec: { ...d.spec, paused: true } };
};

type Row = [name: string, kind: RolloutKind, obj: K8sObject, want: Rollout];
const done = (description: string): Rollout => ({ state: 'complete', description });
const going = (description: string): Rollout => ({ state: 'progressing', description });

const deploymentRows: Row[] = [
  ['complete, one replica', 'Deployment', deployment(base), done('rollout complete: 1 replica available')],
  [
    'complete, three replicas, generation 4 observed',
    'Deployment',
    deployment({ ...base, replicas: 3, generation: 4 }),
    done('rollout complete: 3 replicas available'),
  ],
  ['new ReplicaSet rolling out', 'Deployment', deployment({ ...base, replicas: 5, rollout: 'progressing' }), going('4/5 replicas updated')],
  [
    '3 of 5 updated',
    'Deployment',
    deployment({ ...base, replicas: 5, status: { updatedReplicas: 3, replicas: 7 } }),
    going('3/5 replicas updated'),
  ],
  [
    'old replicas left',
    'Deployment',
    deployment({ ...base, replicas: 3, status: { updatedReplicas: 3, replicas: 4 } }),
    going('1 old replica pending termination'),
  ],
  [
    'two old replicas left',
    'Deployment',
    deployment({ ...base, replicas: 3, status: { updatedReplicas: 3, replicas: 5 } }),
    going('2 old replicas pending termination'),
  ],
  [
    'updated but not yet available',
    'Deployment',
    deployment({ ...base, replicas: 3, status: { availableReplicas: 2 } }),
    going('2/3 replicas available'),
  ],
  [
    'no status counts at all (API omits zeros)',
    'Deployment',
    deployment({
      ...base,
      replicas: 2,
      status: { availableReplicas: undefined, updatedReplicas: undefined, replicas: undefined, readyReplicas: undefined },
    }),
    going('0/2 replicas updated'),
  ],
  [
    'generation 2 not yet observed',
    'Deployment',
    deployment({ ...base, generation: 2, status: { observedGeneration: 1 } }),
    going(NOT_OBSERVED),
  ],
  ['no observedGeneration: controller never wrote status', 'Deployment', { ...deployment(base), status: {} }, going(NOT_OBSERVED)],
  [
    'progress deadline exceeded',
    'Deployment',
    deployment({ ...base, replicas: 3, rollout: 'failed' }),
    { state: 'failed', description: DEADLINE_EXCEEDED },
  ],
  [
    'deadline exceeded but a newer spec is not yet observed',
    'Deployment',
    deployment({ ...base, rollout: 'failed', generation: 3, status: { observedGeneration: 2 } }),
    going(NOT_OBSERVED),
  ],
  [
    'Progressing=True ReplicaSetUpdated is not a failure',
    'Deployment',
    deployment({ ...base, status: { conditions: [condition('Progressing', 'True', 'ReplicaSetUpdated', 'progressing')] } }),
    done('rollout complete: 1 replica available'),
  ],
  ['scaled to zero', 'Deployment', deployment({ ...base, replicas: 0 }), done('scaled to zero')],
  [
    'paused mid-rollout: paused, not progressing (nothing moves until resumed)',
    'Deployment',
    pausedDeployment({ ...base, replicas: 3, rollout: 'progressing' }),
    { state: 'paused', description: `${PAUSED}: 2/3 replicas updated` },
  ],
  [
    'paused with old replicas left',
    'Deployment',
    pausedDeployment({ ...base, replicas: 3, status: { updatedReplicas: 3, replicas: 4 } }),
    { state: 'paused', description: `${PAUSED}: 1 old replica pending termination` },
  ],
  [
    'paused after it finished: complete',
    'Deployment',
    pausedDeployment({ ...base, replicas: 2 }),
    done('rollout complete: 2 replicas available'),
  ],
  [
    'paused, not yet observed: progressing (the controller will act on it)',
    'Deployment',
    pausedDeployment({ ...base, generation: 2, status: { observedGeneration: 1 } }),
    going(NOT_OBSERVED),
  ],
  [
    'spec.replicas absent defaults to 1',
    'Deployment',
    (() => {
      const d = deployment({ ...base, status: { updatedReplicas: 0 } });
      delete d.spec!.replicas;
      return d;
    })(),
    going('0/1 replicas updated'),
  ],
];

const statefulSetRows: Row[] = [
  ['complete', 'StatefulSet', statefulSet({ ...base, replicas: 3 }), done('rollout complete: 3 replicas ready')],
  ['revisions differ: 1 of 3 updated', 'StatefulSet', stsUpdating(3, 1), going('1/3 replicas updated')],
  [
    'revisions differ although every pod is updated (status not yet settled)',
    'StatefulSet',
    stsUpdating(3, 3),
    going('3/3 replicas updated'),
  ],
  [
    'revisions equal, one pod not ready',
    'StatefulSet',
    statefulSet({ ...base, replicas: 3, status: { readyReplicas: 2 } }),
    going('2/3 replicas ready'),
  ],
  [
    'generation not observed',
    'StatefulSet',
    statefulSet({ ...base, generation: 5, status: { observedGeneration: 4 } }),
    going(NOT_OBSERVED),
  ],
  [
    'partition 2 of 5: three updated is complete',
    'StatefulSet',
    withStrategy(stsUpdating(5, 3), { type: 'RollingUpdate', rollingUpdate: { partition: 2 } }),
    done('partitioned rollout complete: 3/5 replicas updated'),
  ],
  [
    'partition 2 of 5: two updated is not',
    'StatefulSet',
    withStrategy(stsUpdating(5, 2), { type: 'RollingUpdate', rollingUpdate: { partition: 2 } }),
    going('2/3 replicas updated (partition 2)'),
  ],
  [
    'partition: updated but a pod below the partition is not ready',
    'StatefulSet',
    withStrategy(stsUpdating(5, 3, { readyReplicas: 4 }), { type: 'RollingUpdate', rollingUpdate: { partition: 2 } }),
    going('4/5 replicas ready'),
  ],
  [
    'partition >= replicas: nothing to update',
    'StatefulSet',
    withStrategy(stsUpdating(3, 0), { type: 'RollingUpdate', rollingUpdate: { partition: 3 } }),
    done('partitioned rollout complete: 0/3 replicas updated'),
  ],
  [
    'partition 0 behaves as no partition',
    'StatefulSet',
    withStrategy(stsUpdating(3, 2), { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }),
    going('2/3 replicas updated'),
  ],
  ['no updateStrategy: RollingUpdate by default', 'StatefulSet', withStrategy(stsUpdating(2, 1), {}), going('1/2 replicas updated')],
  [
    'OnDelete: complete once observed, revisions may differ',
    'StatefulSet',
    withStrategy(stsUpdating(3, 0), { type: 'OnDelete' }),
    done('OnDelete strategy: pods update when deleted'),
  ],
  [
    'OnDelete but not yet observed',
    'StatefulSet',
    withStrategy(statefulSet({ ...base, generation: 2, status: { observedGeneration: 1 } }), { type: 'OnDelete' }),
    going(NOT_OBSERVED),
  ],
  ['scaled to zero', 'StatefulSet', statefulSet({ ...base, replicas: 0, status: { readyReplicas: 0 } }), done('scaled to zero')],
];

const daemonSetRows: Row[] = [
  ['complete on 3 nodes', 'DaemonSet', daemonSet(base), done('rollout complete: 3 pods available')],
  ['complete on 1 node', 'DaemonSet', daemonSet({ ...base, replicas: 1 }), done('rollout complete: 1 pod available')],
  ['partially updated', 'DaemonSet', daemonSet({ ...base, replicas: 4, status: { updatedNumberScheduled: 1 } }), going('1/4 pods updated')],
  ['updated but one unavailable', 'DaemonSet', daemonSet({ ...base, status: { numberAvailable: 2 } }), going('2/3 pods available')],
  [
    'numberAvailable omitted (zero)',
    'DaemonSet',
    daemonSet({ ...base, status: { numberAvailable: undefined } }),
    going('0/3 pods available'),
  ],
  ['generation not observed', 'DaemonSet', daemonSet({ ...base, generation: 2, status: { observedGeneration: 1 } }), going(NOT_OBSERVED)],
  ['no node to run on', 'DaemonSet', daemonSet({ ...base, replicas: 0 }), done('no nodes to run on')],
  [
    'OnDelete: complete once observed',
    'DaemonSet',
    withStrategy(daemonSet({ ...base, status: { updatedNumberScheduled: 0 } }), { type: 'OnDelete' }),
    done('OnDelete strategy: pods update when deleted'),
  ],
];

for (const [group, rows] of [
  ['Deployment', deploymentRows],
  ['StatefulSet', statefulSetRows],
  ['DaemonSet', daemonSetRows],
] as const) {
  t.test(`rolloutOf: ${group}`, (t) => {
    for (const [name, kind, obj, want] of rows) t.same(rolloutOf(kind, obj), want, name);
    t.end();
  });
}

t.test('descriptions are short', (t) => {
  for (const [name, kind, obj] of [...deploymentRows, ...statefulSetRows, ...daemonSetRows]) {
    t.ok(rolloutOf(kind, obj).description.length <= 60, `${name}: fits a status line`);
  }
  t.end();
});
