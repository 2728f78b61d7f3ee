import t from 'tap';
import { groupByRepo, lookupAnswers, lookupQuery, type LookupTarget } from '../../../src/forges/github/deployment-query.js';

const SHA = 'a'.repeat(40);
const base: LookupTarget = {
  owner: 'acme',
  repo: 'web',
  environment: 'staging',
  sha: SHA,
  payload: { cluster: 'eu-1', deploymentName: 'web' },
};
const node = (o: Record<string, unknown> = {}) => ({
  databaseId: 7,
  commitOid: SHA,
  environment: 'staging',
  task: 'deploy',
  payload: JSON.stringify({ cluster: 'eu-1', deploymentName: 'web', controllerVersion: '9' }),
  latestStatus: { state: 'SUCCESS' },
  ...o,
});
const page = (nodes: unknown[], hasNextPage = false) => ({ r0: { deployments: { pageInfo: { hasNextPage }, nodes } } });

t.test('each target read like the REST find: commit, environment, task when named, payload identity; newest first', (t) => {
  const cases: Array<[string, LookupTarget, unknown, unknown]> = [
    ['a match, its latest status in neutral words', base, page([node()]), { kind: 'found', id: 7, state: 'success' }],
    ['the newest match wins', base, page([node({ databaseId: 9 }), node()]), { kind: 'found', id: 9, state: 'success' }],
    ['no status yet', base, page([node({ latestStatus: null })]), { kind: 'found', id: 7, state: null }],
    [
      'pending is no state the bridge sent',
      base,
      page([node({ latestStatus: { state: 'PENDING' } })]),
      { kind: 'found', id: 7, state: null },
    ],
    ['inactive is gone', base, page([node({ latestStatus: { state: 'INACTIVE' } })]), { kind: 'found', id: 7, state: 'gone' }],
    ['another commit', base, page([node({ commitOid: 'b'.repeat(40) })]), { kind: 'none' }],
    ['another environment', base, page([node({ environment: 'prod' })]), { kind: 'none' }],
    ['another cluster in the payload', base, page([node({ payload: '{"cluster":"us-1","deploymentName":"web"}' })]), { kind: 'none' }],
    ['a task the target names must match', { ...base, task: 'deploy:web' }, page([node()]), { kind: 'none' }],
    ['no task named: any task', base, page([node({ task: 'deploy:x' })]), { kind: 'found', id: 7, state: 'success' }],
    ['a full page without it: unknown (REST decides)', base, page([node({ commitOid: 'b'.repeat(40) })], true), undefined],
    ['a full page with it: found', base, page([node()], true), { kind: 'found', id: 7, state: 'success' }],
    ['the repository did not answer', base, { r0: null }, undefined],
    ['no data at all', base, undefined, undefined],
  ];
  for (const [name, target, data, want] of cases) t.same(lookupAnswers([target], data)[0], want, name);
  t.end();
});

t.test('one alias per repository, its environments together, values as variables', (t) => {
  const targets = [base, { ...base, environment: 'prod' }, { ...base, repo: 'api' }, { ...base, sha: 'c'.repeat(40) }];
  t.same(groupByRepo(targets), [
    { owner: 'acme', repo: 'web', environments: ['staging', 'prod'] },
    { owner: 'acme', repo: 'api', environments: ['staging'] },
  ]);
  const q = lookupQuery(targets);
  t.same(q.variables, { o0: 'acme', n0: 'web', e0: ['staging', 'prod'], o1: 'acme', n1: 'api', e1: ['staging'] });
  t.match(
    q.query,
    /r1: repository\(owner: \$o1, name: \$n1\) \{ deployments\(environments: \$e1, first: 100, orderBy: \{ field: CREATED_AT, direction: DESC \}\)/,
  );
  t.notMatch(q.query, /acme/, 'names travel as variables, never in the query text');
  const data = {
    r0: { deployments: { pageInfo: { hasNextPage: false }, nodes: [] } },
    r1: { deployments: { pageInfo: { hasNextPage: false }, nodes: [node()] } },
  };
  t.same(
    lookupAnswers([{ ...base, repo: 'api' }, base], data).map((a) => a?.kind),
    ['none', 'found'],
  );
  t.end();
});
