import t from 'tap';
import { CHANGE_REQUEST_ANNOTATION, parsePullRequestNumber, pullRequestFor, pullRequestOf } from '../../src/metadata/pull-request.js';

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

t.test("pullRequestFor: a pull request URL must name the deployment's own forge and repository", (t) => {
  const forges = [
    { forge: 'github' as const, host: 'github.com' },
    { forge: 'gitlab' as const, host: 'gitlab.example', nested: true },
    { forge: 'forgejo' as const, host: 'forgejo.example' },
  ];
  const github = { forge: 'github', owner: 'org', repo: 'app' };
  const gitlab = { forge: 'gitlab', owner: 'group/sub', repo: 'app' };
  const forgejo = { forge: 'forgejo', owner: 'org', repo: 'app' };
  const rows: Array<[string, { forge: string; owner: string; repo: string }, boolean]> = [
    ['77', github, true],
    ['#77', github, true],
    ['https://github.com/org/app/pull/77', github, true],
    ['https://github.com/Org/App/pull/77', github, true],
    ['https://github.com/other-org/other/pull/77', github, false],
    ['https://github.com/org/app-fork/pull/77', github, false],
    ['https://forgejo.example/org/app/pulls/77', github, false],
    ['https://evil.example/org/app/pull/77', github, false],
    ['https://gitlab.example/group/sub/app/-/merge_requests/77', gitlab, true],
    ['https://gitlab.example/group/app/-/merge_requests/77', gitlab, false],
    ['https://gitlab.example/group/sub/other/-/merge_requests/77', gitlab, false],
    ['https://forgejo.example/org/app/pulls/77', forgejo, true],
    ['https://forgejo.example/other/app/pulls/77', forgejo, false],
  ];
  for (const [value, target, ok] of rows) {
    const r = pullRequestFor(pullRequestOf({}, { 'pull-request': value }), target, forges);
    t.equal(r !== null && 'number' in r && r.number === 77, ok, `${value} for ${target.owner}/${target.repo}`);
    if (!ok) t.match(r, { problem: /another repository than .*: refused/ });
  }
  t.equal(pullRequestFor(null, github, forges), null);
  t.end();
});
