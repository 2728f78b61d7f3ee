import t from 'tap';
import {
  isSupersedable,
  restateInProgress,
  MAX_DESCRIPTION_CHARS,
  planStatuses,
  statusDescription,
  type DeliveryState,
  type DesiredState,
} from '../../src/lifecycle/status-plan.js';

/** Every current state × every desired state. */
const TABLE: Record<string, Record<DesiredState, DeliveryState[]>> = {
  null: { in_progress: ['in_progress'], success: ['success'], failure: ['failure'] },
  pending: { in_progress: ['in_progress'], success: ['success'], failure: ['failure'] },
  in_progress: { in_progress: [], success: ['success'], failure: ['failure'] },
  success: { in_progress: [], success: [], failure: [] },
  failure: { in_progress: [], success: ['success'], failure: [] },
  gone: { in_progress: [], success: ['success'], failure: [] },
  error: { in_progress: ['in_progress'], success: ['success'], failure: ['failure'] },
};
const CURRENT: Array<DeliveryState | null> = [null, 'pending', 'in_progress', 'success', 'failure', 'gone', 'error'];
const DESIRED: DesiredState[] = ['in_progress', 'success', 'failure'];

t.test('planStatuses: the whole table', (t) => {
  t.same(Object.keys(TABLE).sort(), CURRENT.map(String).sort(), 'table covers every status state');
  for (const current of CURRENT) {
    for (const desired of DESIRED) {
      t.same(planStatuses(current, desired), TABLE[String(current)]![desired], `${current} → ${desired}`);
    }
  }
  t.end();
});

t.test('planStatuses: invariants', (t) => {
  for (const current of CURRENT) {
    for (const desired of DESIRED) {
      const plan = planStatuses(current, desired);
      const name = `${current} → ${desired}`;
      if (plan.length > 0) {
        t.equal(plan.at(-1), desired, `${name}: ends at the desired state`);
        t.not(plan[0], current, `${name}: never repeats the current state`);
      }
      for (let i = 1; i < plan.length; i++) t.not(plan[i], plan[i - 1], `${name}: no state twice in a row`);
      t.notOk((plan as readonly string[]).includes('gone'), `${name}: gone only comes from supersession`);
      t.notOk((plan as readonly string[]).includes('error'), `${name}: error is never planned from Flux`);
      if (current === 'success') t.same(plan, [], `${name}: success is final`);
    }
  }
  t.end();
});

t.test('planStatuses: a lifecycle walked step by step', (t) => {
  const walk = (steps: DesiredState[]) => {
    let current: DeliveryState | null = null;
    const sent: DeliveryState[] = [];
    for (const d of steps) {
      const plan = planStatuses(current, d);
      sent.push(...plan);
      current = plan.at(-1) ?? current;
    }
    return sent;
  };
  t.same(
    walk(['in_progress', 'in_progress', 'success', 'in_progress', 'success']),
    ['in_progress', 'success'],
    'happy path, resync echoes ignored',
  );
  t.same(
    walk(['in_progress', 'failure', 'in_progress', 'failure', 'in_progress', 'success']),
    ['in_progress', 'failure', 'success'],
    'Flux retry loop not echoed; a later success lands',
  );
  t.same(walk(['success']), ['success'], 'catch-up: terminal only');
  t.same(walk(['failure', 'failure']), ['failure'], 'catch-up failure once');
  t.end();
});

t.test('isSupersedable', (t) => {
  const rows: Array<[DeliveryState | null, boolean]> = [
    ['success', true],
    ['pending', true],
    ['in_progress', true],
    ['error', true],
    ['failure', false],
    ['gone', false],
    [null, false],
  ];
  for (const [state, want] of rows) t.equal(isSupersedable(state), want, String(state));
  t.end();
});

t.test('statusDescription', (t) => {
  t.equal(MAX_DESCRIPTION_CHARS, 140);
  const long = 'Health check failed after 5m0s: timeout waiting for: [Deployment/apps/podinfo status: InProgress] '.repeat(3);
  const rows: Array<[string, string, string]> = [
    ['short text unchanged', 'Applied revision: main@sha1:07a684d', 'Applied revision: main@sha1:07a684d'],
    ['empty', '', ''],
    ['only whitespace', ' \n\t ', ''],
    [
      'newlines and tabs folded',
      'Namespace/my-app created\nDeployment/my-app/my-app created',
      'Namespace/my-app created Deployment/my-app/my-app created',
    ],
    ['runs of whitespace folded, ends trimmed', '  a \t\t b\r\n\r\nc  ', 'a b c'],
    ['exactly 140 kept', 'x'.repeat(140), 'x'.repeat(140)],
    ['141 cut with an ellipsis', 'x'.repeat(141), `${'x'.repeat(139)}…`],
    ['folding happens before the length check', `${'x'.repeat(70)}\n\n\n\n${'y'.repeat(69)}`, `${'x'.repeat(70)} ${'y'.repeat(69)}`],
  ];
  for (const [name, input, want] of rows) t.equal(statusDescription(input), want, name);
  const cut = statusDescription(long);
  t.equal(cut.length, 140, 'long text is 140 characters');
  t.ok(cut.endsWith('…'));
  t.notMatch(cut, /\s{2}/);
  t.end();
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

t.test('statusDescription never splits a character in two', (t) => {
  const text = `${'x'.repeat(138)}🚀 deployed`;
  const cut = statusDescription(text);
  t.notMatch(cut, LONE_SURROGATE, 'no lone surrogate in what GitHub receives');
  t.ok(Array.from(cut).length <= MAX_DESCRIPTION_CHARS);
  t.end();
});

t.test('restateInProgress: a pause or a resume is told again; nothing else is', (t) => {
  const rows: Array<[string, Parameters<typeof restateInProgress>, boolean]> = [
    ['paused mid-rollout', ['in_progress', 'Rolling out: 1/2 replicas updated', 'in_progress', 'paused: 1/2 replicas updated'], true],
    ['resumed', ['in_progress', 'paused: 1/2 replicas updated', 'in_progress', 'Rolling out: 1/2 replicas updated'], true],
    [
      'Forgejo text, paused',
      ['in_progress', 'web:1 on eu-1 · Rolling out', 'in_progress', 'web:1 on eu-1 · paused: 1/2 replicas updated'],
      true,
    ],
    ['still paused', ['in_progress', 'paused: 1/2', 'in_progress', 'paused: 2/2'], false],
    ['other wording only', ['in_progress', 'Rolling out: 1/2', 'in_progress', 'Rolling out: 2/2'], false],
    ['not in progress on the forge', ['success', 'done', 'in_progress', 'paused: 1/2'], false],
    ['not wanted in progress', ['in_progress', 'Rolling out', 'success', 'paused: 1/2'], false],
    ['nothing yet', [null, null, 'in_progress', 'paused: 1/2'], false],
    ['a word that merely contains it', ['in_progress', 'Rolling out', 'in_progress', 'unpaused: x'], false],
  ];
  for (const [name, args, want] of rows) t.equal(restateInProgress(...args), want, name);
  t.end();
});
