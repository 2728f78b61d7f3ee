import t from 'tap';
import type { Phase } from '../../src/flux/phase.js';
import { planReconcile, type PlanInput, type Recheck } from '../../src/reconcile/reconcile-plan.js';
import type { ResolvedWorkload } from '../../src/reconcile/resolve-source.js';
import { GRACE_MS, REF, T0, candidate, phase, resolved, row, workload } from './plan-fixtures.js';

const input = (o: Partial<PlanInput> = {}): PlanInput => ({
  ref: REF,
  read: null,
  active: [],
  absenceOf: () => undefined,
  now: T0,
  graceMs: GRACE_MS,
  ...o,
});

const healthFailed = phase(
  'failure',
  'HealthCheckFailed',
  "health check failed after 5m0s: timeout waiting for: [Deployment/apps/web status: 'InProgress']",
);

t.test('what is published, and when the source is looked at again', (t) => {
  type Row = [name: string, phase: Phase, workloads: ResolvedWorkload[], publish: Array<[repo: string, state: string]>, recheck: Recheck];
  const rows: Row[] = [
    ['Flux success, rollout complete', phase('success'), [workload('web')], [['web', 'success']], null],
    ['Flux success, still rolling out', phase('success'), [workload('web', 'progressing')], [['web', 'in_progress']], 'rollout'],
    ['Flux reconciling', phase('in_progress', 'Progressing', ''), [workload('web')], [['web', 'in_progress']], null],
    ['Flux failed', phase('failure', 'ReconciliationFailed', 'apply failed'), [workload('web')], [['web', 'failure']], null],
    ['the rollout failed', phase('success'), [workload('web', 'failed')], [['web', 'failure']], null],
    [
      'new revision not applied: nothing, not even a re-check',
      phase('not_applied', 'BuildFailed'),
      [workload('web', 'progressing')],
      [],
      null,
    ],
    ['a rolling workload with nothing to report is not re-checked', phase('success'), [workload('web', 'progressing', [])], [], null],
    [
      'a health check naming one workload fails only that one',
      healthFailed,
      [workload('web'), workload('api')],
      [
        ['web', 'failure'],
        ['api', 'success'],
      ],
      null,
    ],
    [
      'one rolling workload among finished ones',
      phase('success'),
      [workload('web'), workload('api', 'progressing')],
      [
        ['web', 'success'],
        ['api', 'in_progress'],
      ],
      'rollout',
    ],
    [
      'a target two workloads share is published once, as the first decides',
      phase('success'),
      [workload('web', 'progressing', [candidate('web', 'shared')]), workload('api', 'complete', [candidate('api', 'shared')])],
      [['shared', 'in_progress']],
      'rollout',
    ],
  ];
  for (const [name, p, workloads, publish, recheck] of rows) {
    const plan = planReconcile(input({ read: { phase: p, resolved: resolved(workloads) } }));
    t.same(
      plan.publish.map((s) => [s.target.repo, s.state]),
      publish,
      name,
    );
    t.equal(plan.recheck, recheck, `${name}: re-check`);
  }
  t.end();
});

t.test('the description comes with the state: the rollout while it runs, Flux once done', (t) => {
  const plan = planReconcile(
    input({ read: { phase: phase('success'), resolved: resolved([workload('web', 'progressing'), workload('api')]) } }),
  );
  t.same(
    plan.publish.map((s) => s.description),
    ['0/1 replicas updated', 'ReconciliationSucceeded: Applied revision: main@sha1:0123abc'],
  );
  t.end();
});

t.test("the resolution's skips and transient failures pass through", (t) => {
  const skip = {
    source: REF,
    workload: { kind: 'Deployment', namespace: 'apps', name: 'db' },
    container: 'app',
    code: 'registry_unavailable',
    reason: 'down',
  };
  const outage = new Error('registry down');
  const plan = planReconcile(
    input({ read: { phase: phase('success'), resolved: resolved([workload('web')], { skips: [skip], retry: [outage] }) } }),
  );
  t.same(plan.skips, [skip]);
  t.same(plan.retry, [outage]);
  t.end();
});

t.test('cleanup: workloads that left are planned; a rollout re-check comes before a cleanup wait', (t) => {
  const read = { phase: phase('success'), resolved: resolved([workload('web', 'progressing')]) };
  const plan = planReconcile(input({ read, active: [row('web'), row('api')] }));
  t.match(plan.cleanup, { waiting: true, steps: [{ kind: 'wait', absenceKey: 'Kustomization/flux-system/apps|Deployment/apps/api' }] });
  t.equal(plan.recheck, 'rollout');
  t.equal(planReconcile(input({ read: { ...read, resolved: resolved([workload('web')]) }, active: [row('api')] })).recheck, 'cleanup');
  t.end();
});

t.test('a deleted source: nothing to publish or skip, every live deployment on its way out', (t) => {
  t.same(planReconcile(input()), {
    publish: [],
    skips: [],
    cleanup: { prefix: 'Kustomization/flux-system/apps|', keep: new Set(), steps: [], waiting: false },
    retry: [],
    recheck: null,
  });
  const plan = planReconcile(input({ active: [row('web')], absenceOf: () => ({ firstMissingAt: T0 - GRACE_MS, confirmations: 1 }) }));
  t.match(plan, {
    recheck: null,
    cleanup: { steps: [{ kind: 'deactivate', description: 'Flux Kustomization flux-system/apps was deleted' }] },
  });
  t.end();
});
