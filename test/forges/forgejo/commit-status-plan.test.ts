import t from 'tap';
import {
  FORGEJO_STATE,
  GONE_PREFIX,
  phaseOf,
  planCommitStatuses,
  statusBody,
  type ContextPhase,
  type ForgeDesired,
  type SentPhase,
} from '../../../src/forges/forgejo/commit-status-plan.js';
import type { ForgejoState } from '../../../src/forges/forgejo/forgejo-types.js';
import { MAX_DESCRIPTION_CHARS } from '../../../src/lifecycle/status-plan.js';

/** Every current phase × every desired state. */
const TABLE: Record<string, Record<ForgeDesired, SentPhase[]>> = {
  null: { in_progress: ['in_progress'], success: ['success'], failure: ['failure'], gone: [] },
  in_progress: { in_progress: [], success: ['success'], failure: ['failure'], gone: ['gone'] },
  success: { in_progress: [], success: [], failure: [], gone: ['gone'] },
  failure: { in_progress: [], success: ['success'], failure: [], gone: [] },
  gone: { in_progress: [], success: ['success'], failure: [], gone: [] },
  error: { in_progress: ['in_progress'], success: ['success'], failure: ['failure'], gone: ['gone'] },
};
const CURRENT: Array<ContextPhase | null> = [null, 'in_progress', 'success', 'failure', 'gone', 'error'];
const DESIRED: ForgeDesired[] = ['in_progress', 'success', 'failure', 'gone'];

t.test('planCommitStatuses: the whole table', (t) => {
  t.same(Object.keys(TABLE).sort(), CURRENT.map(String).sort(), 'table covers every phase');
  for (const current of CURRENT)
    for (const desired of DESIRED)
      t.same(planCommitStatuses(current, desired), TABLE[String(current)]![desired], `${current} → ${desired}`);
  t.end();
});

t.test('planCommitStatuses: invariants, also in Forgejo states', (t) => {
  for (const current of CURRENT)
    for (const desired of DESIRED) {
      const plan = planCommitStatuses(current, desired);
      const name = `${current} → ${desired}`;
      t.ok(plan.length <= 1, `${name}: at most one status`);
      if (plan.length > 0) t.not(plan[0], current, `${name}: never the current phase again`);
      const shown: ForgejoState | null = current === null || current === 'error' ? null : FORGEJO_STATE[current];
      if (shown === 'success') t.notOk(plan.map((p) => FORGEJO_STATE[p]).includes('pending'), `${name}: never pending after success`);
      if (plan.includes('gone'))
        t.ok(current !== null && ['in_progress', 'success', 'error'].includes(current), `${name}: gone ends a live state`);
    }
  t.end();
});

/** Walks desired states from nothing; returns the Forgejo states sent. */
function walk(steps: ForgeDesired[]): ForgejoState[] {
  let current: ContextPhase | null = null;
  const sent: ForgejoState[] = [];
  for (const d of steps) {
    const plan = planCommitStatuses(current, d);
    sent.push(...plan.map((p) => FORGEJO_STATE[p]));
    current = plan.at(-1) ?? current;
  }
  return sent;
}

t.test('lifecycles walked step by step', (t) => {
  t.same(walk(['in_progress', 'in_progress', 'success', 'success', 'in_progress', 'failure']), ['pending', 'success'], 'two writes');
  t.same(walk(['success']), ['success'], 'catch-up on a Ready source: success only');
  t.same(walk(['in_progress', 'failure', 'in_progress', 'failure', 'success']), ['pending', 'failure', 'success'], 'a retried failure');
  t.same(walk(['in_progress', 'success', 'gone', 'gone', 'in_progress']), ['pending', 'success', 'success'], 'gone once, then quiet');
  t.same(walk(['in_progress', 'success', 'gone', 'success']), ['pending', 'success', 'success', 'success'], 'the commit deployed again');
  t.same(walk(['in_progress', 'failure', 'gone']), ['pending', 'failure'], 'a failure stays as history');
  t.same(walk(['gone']), [], 'nothing to end');
  t.end();
});

t.test('phaseOf reads a status back; the gone description tells gone from success', (t) => {
  const table: Array<[ForgejoState, string, ContextPhase]> = [
    ['pending', 'Progressing', 'in_progress'],
    ['success', 'Applied revision main@sha1:abc', 'success'],
    ['success', `${GONE_PREFIX}: Kustomization flux-system/pr-42 deleted`, 'gone'],
    ['failure', 'HealthCheckFailed', 'failure'],
    ['error', 'x', 'error'],
    ['warning', 'x', 'error'],
  ];
  for (const [status, description, phase] of table) t.equal(phaseOf({ status, description }), phase, `${status} "${description}"`);
  t.end();
});

t.test('statusBody: Forgejo states, one-line bounded descriptions, no target_url once gone', (t) => {
  const url = 'https://pr-42.preview.example.com/';
  t.same(statusBody('in_progress', 'ctx', 'Progressing', url), {
    state: 'pending',
    context: 'ctx',
    description: 'Progressing',
    target_url: url,
  });
  t.same(statusBody('failure', 'ctx', 'bad', ''), { state: 'failure', context: 'ctx', description: 'bad' }, 'an empty URL is left out');
  t.same(statusBody('gone', 'ctx', 'preview closed', url), {
    state: 'success',
    context: 'ctx',
    description: `${GONE_PREFIX}: preview closed`,
  });
  t.equal(
    phaseOf({ status: 'success', description: statusBody('gone', 'ctx', 'x').description }),
    'gone',
    'what is sent reads back as gone',
  );
  const long = statusBody('success', 'ctx', `${'🚀'.repeat(200)}\n\nmore`).description;
  t.equal(Array.from(long).length, MAX_DESCRIPTION_CHARS);
  t.match(long, /^🚀+…$/u, 'cut on code points, with an ellipsis');
  t.end();
});
