import t from 'tap';
import type { Absence } from '../../src/lifecycle/absence.js';
import { planCleanup, type CleanupInput, type SourceSighting } from '../../src/reconcile/cleanup-plan.js';
import { commitOf } from '../harness/kube-meta.js';
import { GRACE_MS, REF, T0, row } from './plan-fixtures.js';

const PREFIX = 'Kustomization/flux-system/apps|';
const WEB = 'Deployment/apps/web';
const API = 'Deployment/apps/api';

const sighting = (present: string[], missing: string[] = [], namespacesGone: string[] = []): SourceSighting => ({
  present: new Set(present),
  missing: new Set(missing),
  namespacesGone: new Set(namespacesGone),
});

const input = (o: Partial<CleanupInput>): CleanupInput => ({
  ref: REF,
  sighting: sighting([WEB, API]),
  active: [row('web'), row('api')],
  absenceOf: () => undefined,
  now: T0,
  graceMs: GRACE_MS,
  ...o,
});

/** An absence of api recorded earlier. */
const apiAbsent = (a: Absence) => (key: string) => (key === PREFIX + API ? a : undefined);

t.test('each workload that left gets one more read, and ends once two reads and the grace agree', (t) => {
  type Row = [name: string, input: CleanupInput, steps: Array<[kind: string, key: string, detail: unknown]>];
  const rows: Row[] = [
    ['every workload still listed: nothing to do', input({}), []],
    ['pruned, first read', input({ sighting: sighting([WEB]) }), [['wait', API, { firstMissingAt: T0, confirmations: 1 }]]],
    [
      'pruned, second read inside the grace',
      input({ sighting: sighting([WEB]), absenceOf: apiAbsent({ firstMissingAt: T0 - GRACE_MS + 1, confirmations: 1 }) }),
      [['wait', API, { firstMissingAt: T0 - GRACE_MS + 1, confirmations: 2 }]],
    ],
    [
      'pruned, confirmed',
      input({ sighting: sighting([WEB]), absenceOf: apiAbsent({ firstMissingAt: T0 - GRACE_MS, confirmations: 1 }) }),
      [['deactivate', API, 'removed from the inventory of Kustomization flux-system/apps']],
    ],
    [
      'gone from the cluster, confirmed',
      input({ sighting: sighting([WEB], [API]), absenceOf: apiAbsent({ firstMissingAt: T0 - GRACE_MS, confirmations: 3 }) }),
      [['deactivate', API, 'Deployment apps/api no longer exists']],
    ],
    [
      'gone with its namespace, confirmed',
      input({ sighting: sighting([], [WEB, API], ['apps']), absenceOf: apiAbsent({ firstMissingAt: T0 - GRACE_MS, confirmations: 1 }) }),
      [
        ['wait', WEB, { firstMissingAt: T0, confirmations: 1 }],
        ['deactivate', API, 'namespace apps was deleted (with Deployment api)'],
      ],
    ],
    [
      'another namespace gone says nothing about this one',
      input({
        sighting: sighting([WEB], [API], ['preview-42']),
        absenceOf: apiAbsent({ firstMissingAt: T0 - GRACE_MS, confirmations: 1 }),
      }),
      [['deactivate', API, 'Deployment apps/api no longer exists']],
    ],
    [
      'pruned while its namespace is gone: the inventory decides first',
      input({ sighting: sighting([WEB], [], ['apps']), absenceOf: apiAbsent({ firstMissingAt: T0 - GRACE_MS, confirmations: 1 }) }),
      [['deactivate', API, 'removed from the inventory of Kustomization flux-system/apps']],
    ],
    [
      'the source deleted: every workload, each on its own streak',
      input({ sighting: null, absenceOf: apiAbsent({ firstMissingAt: T0 - GRACE_MS, confirmations: 1 }) }),
      [
        ['wait', WEB, { firstMissingAt: T0, confirmations: 1 }],
        ['deactivate', API, 'Flux Kustomization flux-system/apps was deleted'],
      ],
    ],
  ];
  for (const [name, i, want] of rows) {
    const plan = planCleanup(i);
    t.same(
      plan.steps.map((s) => [s.kind, s.absenceKey.slice(PREFIX.length), s.kind === 'wait' ? s.absence : s.description]),
      want,
      name,
    );
    t.equal(
      plan.waiting,
      want.some(([kind]) => kind === 'wait'),
      `${name}: waiting`,
    );
    t.same(plan.keep, new Set(want.map(([, key]) => PREFIX + key)), `${name}: the absences kept`);
  }
  t.end();
});

t.test("a workload's deployments end together, in one step", (t) => {
  const older = row('api', commitOf('api-old'), 'in_progress');
  const plan = planCleanup(
    input({ sighting: null, active: [row('api'), older], absenceOf: () => ({ firstMissingAt: 0, confirmations: 1 }) }),
  );
  t.match(plan.steps, [{ kind: 'deactivate', workload: API, rows: [row('api'), older] }]);
  t.equal(plan.prefix, PREFIX);
  t.end();
});
