import t from 'tap';
import { planGitLab, transitionAllowed, type GitLabDesired, type GitLabRow } from '../../../src/forges/gitlab/gitlab-lifecycle.js';
import type { GitLabStatus } from '../../../src/forges/gitlab/gitlab-types.js';
import { compileSpec } from '../../harness/gitlab-sim/spec.js';

const STATUSES: GitLabStatus[] = ['running', 'success', 'failed', 'canceled'];
const DESIRED: GitLabDesired[] = ['in_progress', 'success', 'failure', 'gone'];
const known = (status: GitLabStatus): GitLabRow => ({ kind: 'known', deploymentId: 7, status });

t.test('first sight: running for a rollout, success directly for catch-up, failed on failure, nothing when gone', (t) => {
  t.same(planGitLab({ kind: 'none' }, 'in_progress'), { call: 'create', status: 'running' });
  t.same(planGitLab({ kind: 'none' }, 'success'), { call: 'create', status: 'success' });
  t.same(planGitLab({ kind: 'none' }, 'failure'), { call: 'create', status: 'failed' });
  t.equal(planGitLab({ kind: 'none' }, 'gone'), undefined);
  t.end();
});

t.test('a known deployment: the table', (t) => {
  const rows: [GitLabStatus, GitLabDesired, GitLabStatus | undefined][] = [
    ['running', 'in_progress', undefined],
    ['running', 'success', 'success'],
    ['running', 'failure', 'failed'],
    ['running', 'gone', 'canceled'],
    ['success', 'in_progress', undefined],
    ['success', 'success', undefined],
    ['success', 'failure', 'failed'],
    ['success', 'gone', undefined],
    ['failed', 'in_progress', undefined],
    ['failed', 'success', 'success'],
    ['failed', 'failure', undefined],
    ['failed', 'gone', undefined],
    ['canceled', 'in_progress', undefined],
    ['canceled', 'success', 'success'],
    ['canceled', 'failure', 'failed'],
    ['canceled', 'gone', undefined],
  ];
  for (const [from, desired, to] of rows)
    t.same(
      planGitLab(known(from), desired),
      to === undefined ? undefined : { call: 'update', deploymentId: 7, status: to },
      `${from} + ${desired}`,
    );
  t.end();
});

t.test('a provisional row is recovered before anything is created', (t) => {
  for (const d of DESIRED) t.same(planGitLab({ kind: 'provisional' }, d), { call: 'recover' }, d);
  t.end();
});

t.test("never a transition GitLab refuses, checked against the fixture's state machine", (t) => {
  const machine = compileSpec();
  for (const from of STATUSES)
    for (const to of STATUSES) t.equal(transitionAllowed(from, to), machine.transitionAllowed(from, to).allowed, `${from} → ${to}`);
  for (const from of STATUSES)
    for (const d of DESIRED) {
      const plan = planGitLab(known(from), d);
      if (plan?.call === 'update') t.ok(machine.transitionAllowed(from, plan.status).allowed, `${from} + ${d} sends ${plan.status}`);
    }
  t.notOk(transitionAllowed('running', 'running'));
  t.notOk(transitionAllowed('success', 'running'));
  t.notOk(transitionAllowed('success', 'success'));
  t.end();
});
