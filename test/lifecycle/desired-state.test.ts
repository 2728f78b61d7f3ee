import t from 'tap';
import type { Phase } from '../../src/flux/phase.js';
import { desiredFor, type Desired } from '../../src/lifecycle/desired-state.js';
import { MAX_DESCRIPTION_CHARS } from '../../src/lifecycle/status-plan.js';
import type { Rollout } from '../../src/lifecycle/rollout.js';

const REV = 'main@sha1:07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
const phase = (kind: Phase['kind'], reason: string, message: string): Phase => ({ kind, reason, message, revision: REV });

const applied = phase('success', 'ReconciliationSucceeded', `Applied revision: ${REV}`);
const reconciling = phase('in_progress', 'Progressing', 'Reconciliation in progress');
const buildFailed = phase('not_applied', 'BuildFailed', 'kustomize build failed: accumulating resources');
const applyFailed = phase('failure', 'ReconciliationFailed', 'Deployment/apps/web dry-run failed: spec.replicas: Invalid value');
const webStuck = phase(
  'failure',
  'HealthCheckFailed',
  "health check failed after 5m0s: timeout waiting for: [Deployment/apps/web status: 'InProgress']",
);
const webStalled = phase(
  'failure',
  'HealthCheckFailed',
  "health check failed after 16.6ms: failed early due to stalled resources: [Deployment/apps/web status: 'Failed']",
);
const releaseStuck = phase(
  'failure',
  'HealthCheckFailed',
  "health check failed after 5m0s: timeout waiting for: [HelmRelease/apps/cache status: 'InProgress']",
);
const unreadable = phase('failure', 'HealthCheckFailed', "Health check timed out for [deployments.apps 'apps/web']");

const complete: Rollout = { state: 'complete', description: 'rollout complete: 3 replicas available' };
const rolling: Rollout = { state: 'progressing', description: '3/5 replicas updated' };
const deadline: Rollout = { state: 'failed', description: 'progress deadline exceeded' };

const WEB = 'Deployment/apps/web';
const API = 'Deployment/apps/api';
const SIBLING_OK = 'rollout complete: 3 replicas available (Flux health check failed on other objects)';

type Row = [name: string, phase: Phase, rollout: Rollout, workload: string, want: Desired];
const rows: Row[] = [
  // Flux success: held back until the rollout completes.
  [
    'success + complete → success',
    applied,
    complete,
    WEB,
    { state: 'success', description: `ReconciliationSucceeded: Applied revision: ${REV}` },
  ],
  [
    'success + rolling out → in_progress with the rollout',
    applied,
    rolling,
    WEB,
    { state: 'in_progress', description: '3/5 replicas updated' },
  ],
  ['success + deadline exceeded → failure', applied, deadline, WEB, { state: 'failure', description: 'progress deadline exceeded' }],
  // Flux in progress.
  [
    'in_progress + complete → in_progress',
    reconciling,
    complete,
    WEB,
    { state: 'in_progress', description: 'Progressing: Reconciliation in progress' },
  ],
  [
    'in_progress + rolling out → in_progress',
    reconciling,
    rolling,
    WEB,
    { state: 'in_progress', description: 'Progressing: Reconciliation in progress' },
  ],
  [
    'in_progress + deadline exceeded → failure',
    reconciling,
    deadline,
    WEB,
    { state: 'failure', description: 'progress deadline exceeded' },
  ],
  // Not applied: keep the state, except a workload whose own rollout failed.
  [
    'not_applied + complete → keep',
    buildFailed,
    complete,
    WEB,
    { state: null, description: 'BuildFailed: kustomize build failed: accumulating resources' },
  ],
  [
    'not_applied + rolling out → keep',
    buildFailed,
    rolling,
    WEB,
    { state: null, description: 'BuildFailed: kustomize build failed: accumulating resources' },
  ],
  [
    'not_applied + deadline exceeded → failure',
    buildFailed,
    deadline,
    WEB,
    { state: 'failure', description: 'progress deadline exceeded' },
  ],
  // Other Flux failures are the whole source's.
  [
    'apply failure + complete → failure',
    applyFailed,
    complete,
    API,
    { state: 'failure', description: `ReconciliationFailed: ${applyFailed.message}` },
  ],
  [
    'apply failure + rolling out → failure',
    applyFailed,
    rolling,
    API,
    { state: 'failure', description: `ReconciliationFailed: ${applyFailed.message}` },
  ],
  // Health checks: about the objects they name.
  [
    'health check names web: web fails',
    webStuck,
    rolling,
    WEB,
    { state: 'failure', description: `HealthCheckFailed: ${webStuck.message}` },
  ],
  [
    'health check names web: web fails even if it finished since',
    webStuck,
    complete,
    WEB,
    { state: 'failure', description: `HealthCheckFailed: ${webStuck.message}` },
  ],
  ['stalled web: web fails', webStalled, deadline, WEB, { state: 'failure', description: 'progress deadline exceeded' }],
  ['one stuck service must not paint its healthy siblings red', webStuck, complete, API, { state: 'success', description: SIBLING_OK }],
  ['a sibling still rolling out stays in_progress', webStuck, rolling, API, { state: 'in_progress', description: '3/5 replicas updated' }],
  ['a sibling whose own rollout failed fails', webStalled, deadline, API, { state: 'failure', description: 'progress deadline exceeded' }],
  [
    'health check names another release: workloads judged by their rollout',
    releaseStuck,
    complete,
    WEB,
    { state: 'success', description: SIBLING_OK },
  ],
  [
    'same key in another namespace is not named',
    webStuck,
    complete,
    'Deployment/staging/web',
    { state: 'success', description: SIBLING_OK },
  ],
  ['same name of another kind is not named', webStuck, complete, 'StatefulSet/apps/web', { state: 'success', description: SIBLING_OK }],
  [
    'health check message naming nothing readable fails everyone',
    unreadable,
    complete,
    API,
    { state: 'failure', description: `HealthCheckFailed: ${unreadable.message}` },
  ],
];

t.test('desiredFor: the whole table', (t) => {
  for (const [name, p, rollout, workloadKey, want] of rows) t.same(desiredFor({ phase: p, rollout, workloadKey }), want, name);
  t.end();
});

t.test('desiredFor: one stuck service among three', (t) => {
  const message = "health check failed after 10m0s: timeout waiting for: [Deployment/shop/cart status: 'InProgress']";
  const p = phase('failure', 'HealthCheckFailed', message);
  const workloads: Array<[string, Rollout]> = [
    ['Deployment/shop/cart', { state: 'progressing', description: '0/2 replicas available' }],
    ['Deployment/shop/catalog', complete],
    ['StatefulSet/shop/orders-db', { state: 'complete', description: 'rollout complete: 3 replicas ready' }],
  ];
  const states = workloads.map(([workloadKey, rollout]) => desiredFor({ phase: p, rollout, workloadKey }).state);
  t.same(states, ['failure', 'success', 'success']);
  t.end();
});

t.test('desiredFor: descriptions fit GitHub and keep the named workload visible', (t) => {
  const many = Array.from({ length: 8 }, (_, i) => `Deployment/apps/service-${i} status: 'InProgress'`);
  const p = phase('failure', 'HealthCheckFailed', `health check failed after 5m0s: timeout waiting for: [${many.join(', ')}]`);
  const d = desiredFor({ phase: p, rollout: rolling, workloadKey: 'Deployment/apps/service-7' });
  t.equal(d.state, 'failure');
  t.ok(Array.from(d.description).length <= MAX_DESCRIPTION_CHARS, 'within 140 characters');
  t.match(d.description, /^HealthCheckFailed: Deployment\/apps\/service-7 is named in: health check failed after 5m0s/);

  const long = phase('failure', 'ReconciliationFailed', `apply failed:\n${'x'.repeat(300)}`);
  const f = desiredFor({ phase: long, rollout: complete, workloadKey: WEB });
  t.equal(Array.from(f.description).length, MAX_DESCRIPTION_CHARS, 'long Flux messages are cut to 140');
  t.notMatch(f.description, /\n/, 'on one line');

  const bare = desiredFor({ phase: phase('failure', 'Stalled', ''), rollout: complete, workloadKey: WEB });
  t.equal(bare.description, 'Stalled', 'a reason without a message');
  t.end();
});
