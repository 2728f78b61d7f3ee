import t from 'tap';
import { CHANGE_REQUEST_ANNOTATION, parsePullRequestNumber, pullRequestOf } from '../../src/comments/pull-request.js';

t.test('parsePullRequestNumber takes numbers, #numbers and pull/merge request URLs only', (t) => {
  const rows: Array<[string, number | undefined]> = [
    ['42', 42],
    [' 7 ', 7],
    ['#12', 12],
    ['https://github.com/acme/web/pull/9', 9],
    ['https://gitlab.example/group/sub/app/-/merge_requests/31', 31],
    ['https://forgejo.example/acme/web/pulls/5/', 5],
    ['https://github.com/acme/web/pull/9?x=1', 9],
    ['0', undefined],
    ['-3', undefined],
    ['4.5', undefined],
    ['feature/login', undefined],
    ['99999999999', undefined],
    ['https://github.com/acme/web/issues/9', undefined],
    ['javascript:alert(1)//pull/3', undefined],
    ['', undefined],
  ];
  for (const [value, want] of rows) t.equal(parsePullRequestNumber(value), want, JSON.stringify(value));
  t.end();
});

t.test('pullRequestOf: the Flux object first, then the workload, and only when one says so', (t) => {
  t.same(pullRequestOf({ [CHANGE_REQUEST_ANNOTATION]: '12' }, { 'pull-request': '99' }), {
    number: 12,
    why: `from the Flux object's ${CHANGE_REQUEST_ANNOTATION} annotation`,
  });
  t.same(pullRequestOf({}, { 'pull-request': '99' }), {
    number: 99,
    why: "from the workload's github-deployment-bridge.io/pull-request annotation",
  });
  t.same(
    pullRequestOf({ [CHANGE_REQUEST_ANNOTATION]: '  ' }, { 'pull-request': '#4' }),
    {
      number: 4,
      why: "from the workload's github-deployment-bridge.io/pull-request annotation",
    },
    'a blank value counts as absent',
  );
  t.equal(pullRequestOf({}, {}), null, 'nothing named: no comment, no guess');
  const bad = pullRequestOf({ [CHANGE_REQUEST_ANNOTATION]: 'main' }, { 'pull-request': '3' });
  t.ok(
    bad !== null && 'problem' in bad && bad.problem.includes('names no pull request'),
    'a wrong value is a problem, not the next source',
  );
  t.end();
});
