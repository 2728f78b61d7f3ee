import t from 'tap';
import { derivePhase, type PhaseKind } from '../../src/flux/phase.js';
import type { K8sObject } from '../../src/kube/kube-types.js';
import { helmRelease, kustomization } from '../harness/flux-objects.js';
import { condition } from '../harness/kube-meta.js';

const REV = 'main@sha1:07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
const ks = (o: Partial<Parameters<typeof kustomization>[0]> = {}) => kustomization({ name: 'apps', revision: REV, ...o });
const hr = (o: Partial<Parameters<typeof helmRelease>[0]> = {}) => helmRelease({ name: 'podinfo', chartVersion: '6.7.1', ...o });
const notReady = (reason: string, message = `${reason} happened`) => ({ ready: 'False' as const, reason, message });

/** A plain object with exactly the given status (no builder defaults). */
const plain = (status: Record<string, unknown> | undefined, generation?: number): K8sObject => ({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name: 'apps', namespace: 'flux-system', ...(generation !== undefined ? { generation } : {}) },
  ...(status ? { status } : {}),
});

type Row = [name: string, obj: K8sObject, kind: PhaseKind, reason: string];

const FAILURE_REASONS = [
  'HealthCheckFailed',
  'ProgressDeadlineExceeded',
  'ReconciliationFailed',
  'InstallFailed',
  'UpgradeFailed',
  'UninstallFailed',
  'RollbackFailed',
  'TestFailed',
  'InventoryBuildFailed',
];

const rows: Row[] = [
  // success
  ['Kustomization Ready=True observed', ks(), 'success', 'ReconciliationSucceeded'],
  ['Kustomization Ready=True, generation 3 observed 3', ks({ generation: 3 }), 'success', 'ReconciliationSucceeded'],
  ['HelmRelease install succeeded', hr(), 'success', 'InstallSucceeded'],
  ['HelmRelease upgrade succeeded', hr({ generation: 2 }), 'success', 'UpgradeSucceeded'],
  ['Ready=True without reason', plain({ conditions: [{ type: 'Ready', status: 'True' }] }), 'success', 'Ready'],
  [
    'no generation at all counts as observed',
    plain({ conditions: [condition('Ready', 'True', 'ReconciliationSucceeded', 'ok')] }),
    'success',
    'ReconciliationSucceeded',
  ],
  // new generation not yet observed
  [
    'Kustomization Ready=True but generation > observedGeneration',
    ks({ generation: 2, observedGeneration: 1 }),
    'in_progress',
    'Progressing',
  ],
  [
    'HelmRelease Ready=True but generation > observedGeneration',
    hr({ generation: 5, observedGeneration: 4 }),
    'in_progress',
    'Progressing',
  ],
  [
    'Ready=False unknown reason, unobserved',
    ks({ generation: 2, observedGeneration: 1, conditions: notReady('SomethingNew') }),
    'in_progress',
    'Progressing',
  ],
  ['Ready=False ReconciliationFailed, observed', ks({ conditions: notReady('ReconciliationFailed') }), 'failure', 'ReconciliationFailed'],
  // stalled
  [
    'Kustomization Stalled=True',
    ks({ conditions: notReady('ReconciliationFailed'), stalled: { reason: 'InvalidPath' } }),
    'failure',
    'InvalidPath',
  ],
  [
    'HelmRelease Stalled RetriesExceeded',
    hr({ generation: 2, conditions: notReady('UpgradeFailed'), stalled: true }),
    'failure',
    'RetriesExceeded',
  ],
  [
    'Stalled=True while Ready=Unknown',
    ks({ conditions: { ready: 'Unknown', reason: 'Progressing', message: 'x' }, stalled: { reason: 'InvalidCEL' } }),
    'failure',
    'InvalidCEL',
  ],
  ['Stalled=True without reason', plain({ conditions: [{ type: 'Stalled', status: 'True' }] }), 'failure', 'Stalled'],
  [
    'Stalled=False is ignored',
    plain({ conditions: [{ type: 'Stalled', status: 'False' }, condition('Ready', 'True', 'ReconciliationSucceeded', 'ok')] }),
    'success',
    'ReconciliationSucceeded',
  ],
  // not applied
  ['Ready=False ArtifactFailed', ks({ conditions: notReady('ArtifactFailed') }), 'not_applied', 'ArtifactFailed'],
  ['Ready=False BuildFailed', ks({ conditions: notReady('BuildFailed') }), 'not_applied', 'BuildFailed'],
  ['Ready=False BuildFailed while Stalled', ks({ conditions: notReady('BuildFailed'), stalled: true }), 'not_applied', 'BuildFailed'],
  [
    'Ready=False ArtifactFailed, unobserved',
    ks({ generation: 2, observedGeneration: 1, conditions: notReady('ArtifactFailed') }),
    'not_applied',
    'ArtifactFailed',
  ],
  // failure reasons, observed and not
  ...FAILURE_REASONS.map((r): Row => [`Ready=False ${r} observed`, ks({ conditions: notReady(r) }), 'failure', r]),
  ...FAILURE_REASONS.map((r): Row => [
    `Ready=False ${r} unobserved`,
    ks({ generation: 2, observedGeneration: 1, conditions: notReady(r) }),
    'failure',
    r,
  ]),
  ['HelmRelease UpgradeFailed', hr({ generation: 2, conditions: notReady('UpgradeFailed') }), 'failure', 'UpgradeFailed'],
  ['Ready=False unknown reason, observed', ks({ conditions: notReady('SomethingNew') }), 'failure', 'SomethingNew'],
  [
    'Ready=False without reason, observed',
    plain({ conditions: [{ type: 'Ready', status: 'False' }], observedGeneration: 1 }, 1),
    'failure',
    'Failed',
  ],
  ['Ready=False without reason, unobserved', plain({ conditions: [{ type: 'Ready', status: 'False' }] }, 1), 'in_progress', 'Progressing'],
  // waiting
  ['Ready=False DependencyNotReady', ks({ conditions: notReady('DependencyNotReady') }), 'in_progress', 'DependencyNotReady'],
  ['Ready=False HealthCheckCanceled', ks({ conditions: notReady('HealthCheckCanceled') }), 'in_progress', 'HealthCheckCanceled'],
  ['Ready=False Progressing', ks({ conditions: notReady('Progressing') }), 'in_progress', 'Progressing'],
  ['Ready=False ProgressingWithRetry', ks({ conditions: notReady('ProgressingWithRetry') }), 'in_progress', 'ProgressingWithRetry'],
  [
    'Ready=Unknown Reconciling',
    ks({ conditions: { ready: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress' }, reconciling: true }),
    'in_progress',
    'Progressing',
  ],
  [
    'HelmRelease Ready=Unknown Reconciling',
    hr({ conditions: { ready: 'Unknown', reason: 'Progressing', message: "Running 'install'" }, reconciling: true }),
    'in_progress',
    'Progressing',
  ],
  // nothing to go on
  ['no conditions', plain({ observedGeneration: 1 }, 1), 'in_progress', 'Progressing'],
  ['empty conditions', plain({ conditions: [], observedGeneration: 1 }, 1), 'in_progress', 'Progressing'],
  ['conditions not an array', plain({ conditions: { Ready: 'True' }, observedGeneration: 1 }, 1), 'in_progress', 'Progressing'],
  ['no status at all', plain(undefined, 1), 'in_progress', 'Progressing'],
  ['no status, no generation', plain(undefined), 'in_progress', 'Progressing'],
];

t.test('phase table', (t) => {
  for (const [name, obj, kind, reason] of rows) {
    const p = derivePhase(obj);
    t.equal(p.kind, kind, `${name}: kind`);
    t.equal(p.reason, reason, `${name}: reason`);
  }
  t.end();
});

t.test('messages', (t) => {
  t.equal(
    derivePhase(ks({ conditions: notReady('HealthCheckFailed', 'timeout waiting for: [Deployment/apps/podinfo status: InProgress]') }))
      .message,
    'timeout waiting for: [Deployment/apps/podinfo status: InProgress]',
  );
  t.equal(derivePhase(ks({ generation: 2, observedGeneration: 1 })).message, 'new generation not yet observed');
  t.equal(derivePhase(plain({ observedGeneration: 1 }, 1)).message, '', 'no conditions: empty message');
  t.equal(derivePhase(plain({}, 1)).message, 'new generation not yet observed', 'never observed');
  t.equal(
    derivePhase(ks({ stalled: { message: 'path not found' }, conditions: notReady('ReconciliationFailed') })).message,
    'path not found',
  );
  t.end();
});

t.test('revision', (t) => {
  const sha2 = 'main@sha1:2222222222222222222222222222222222222222';
  const rows: Array<[string, K8sObject, string | undefined]> = [
    ['Kustomization lastAttemptedRevision', ks(), REV],
    ['lastAttemptedRevision wins over lastAppliedRevision', ks({ revision: sha2, lastAppliedRevision: REV }), sha2],
    ['lastAttemptedRevision is kept while unobserved', ks({ revision: sha2, generation: 2, observedGeneration: 1 }), sha2],
    ['only lastAppliedRevision', plain({ lastAppliedRevision: REV }), REV],
    ['empty lastAttemptedRevision falls through', plain({ lastAttemptedRevision: '', lastAppliedRevision: REV }), REV],
    ['HelmRelease lastAttemptedRevision is the chart version', hr({ chartVersion: '6.8.0' }), '6.8.0'],
    ['OCI chart revision', plain({ lastAttemptedRevision: '6.8.0@sha256:abc' }), '6.8.0@sha256:abc'],
    ['only lastAttemptedConfigDigest', plain({ lastAttemptedConfigDigest: 'sha256:abc' }), 'sha256:abc'],
    [
      'history only (newest first)',
      plain({
        history: [
          { chartName: 'podinfo', chartVersion: '6.7.1' },
          { chartName: 'podinfo', chartVersion: '6.7.0' },
        ],
      }),
      'podinfo@6.7.1',
    ],
    ['history without chartName', plain({ history: [{ chartVersion: '1.0.0' }] }), 'chart@1.0.0'],
    ['history entry without chartVersion', plain({ history: [{ chartName: 'podinfo' }] }), undefined],
    ['empty history', plain({ history: [] }), undefined],
    ['nothing', plain({}), undefined],
    ['no status', plain(undefined), undefined],
  ];
  for (const [name, obj, want] of rows) {
    const p = derivePhase(obj);
    t.equal(p.revision, want, name);
    if (want === undefined) t.notOk('revision' in p, `${name}: no revision key`);
  }
  t.end();
});
