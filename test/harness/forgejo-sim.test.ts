import t, { type Test } from 'tap';
import { retryAfterFault, startForgejoSimulator, type ForgejoSimulator, type ForgejoSimulatorOptions } from './forgejo-sim.js';
import { compileSwagger, loadSwagger } from './forgejo-sim/spec.js';

const TOKEN = 'forgejo_test_token';
const SHA = 'a'.repeat(40);
const SHA2 = '0123456789abcdef0123456789abcdef01234567';
const REPO = 'repos/acme/web';

async function setup(t: Test, options: ForgejoSimulatorOptions = {}): Promise<ForgejoSimulator> {
  const sim = await startForgejoSimulator({ tokens: [TOKEN], ...options });
  t.teardown(() => sim.close());
  return sim;
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One request to the simulator's API with plain fetch: `path` below /api/v1. */
async function call(
  sim: ForgejoSimulator,
  method: string,
  path: string,
  o: { token?: string | null; body?: unknown; signal?: AbortSignal } = {},
): Promise<Answer> {
  const token = o.token === undefined ? TOKEN : o.token;
  const res = await fetch(`${sim.apiUrl}/${path}`, {
    method,
    headers: { ...(token === null ? {} : { authorization: `token ${token}` }), 'content-type': 'application/json' },
    ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
    signal: o.signal ?? AbortSignal.timeout(5000),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a proxy's plain-text answer stays text
  }
  return { status: res.status, headers: res.headers, body };
}

const post = (sim: ForgejoSimulator, sha: string, body: Record<string, unknown>, o: { token?: string | null } = {}) =>
  call(sim, 'POST', `${REPO}/statuses/${sha}`, { ...o, body: { context: 'deploy/staging (eu-1)', description: 'd', ...body } });

/** A response schema from the fixture, compiled here apart from the simulator's own checks. */
const swagger = compileSwagger(loadSwagger());

t.test('create: 201 with `status` (not `state`), ids counting up per commit, trimmed text, valid against the swagger', async (t) => {
  const sim = await setup(t);
  const a = await post(sim, SHA, { state: 'pending', context: '  deploy/staging (eu-1) ', target_url: ' https://x.example/ ' });
  t.equal(a.status, 201);
  t.same(swagger.response('repoCreateStatus', 201, a.body), [], 'the answer matches CommitStatus');
  t.not(
    swagger.response('repoCreateStatus', 201, { ...(a.body as object), id: '1', status: 'in_progress' }).length,
    0,
    'and the check bites',
  );
  t.match(a.body, {
    id: 1,
    status: 'pending',
    context: 'deploy/staging (eu-1)',
    target_url: 'https://x.example/',
    creator: { login: String },
  });
  t.notOk('state' in (a.body as object), 'the answer names the state `status`');
  t.match((await post(sim, SHA, { state: 'success' })).body, { id: 2 });
  t.match((await post(sim, SHA2, { state: 'success' })).body, { id: 1 }, 'another commit counts from 1');
  t.same(
    sim.statuses('acme', 'web', SHA).map((s) => s.state),
    ['pending', 'success'],
  );
  t.equal(sim.writes().length, 3);
  t.same(sim.violations, []);
});

t.test('lists: newest first by index with sort=leastindex; the default sorts by whole seconds, ties oldest first', async (t) => {
  let clock = 1_700_000_000_000;
  const sim = await setup(t, { clock: () => clock });
  for (const state of ['pending', 'success']) await post(sim, SHA, { state });
  const ids = (a: Answer) => (a.body as Array<{ id: number }>).map((s) => s.id);
  t.same(ids(await call(sim, 'GET', `${REPO}/statuses/${SHA}?sort=leastindex`)), [2, 1], 'leastindex is index DESC');
  t.same(ids(await call(sim, 'GET', `${REPO}/statuses/${SHA}`)), [1, 2], 'same second: the default lists the older first');
  clock += 1000;
  await post(sim, SHA, { state: 'failure' });
  t.same(ids(await call(sim, 'GET', `${REPO}/statuses/${SHA}`)), [3, 1, 2], 'a later second comes first');
  t.same(ids(await call(sim, 'GET', `${REPO}/statuses/${SHA}?sort=oldest`)), [1, 2, 3]);
  t.same(ids(await call(sim, 'GET', `${REPO}/statuses/${SHA}?state=success`)), [2], 'filtered by state');
  t.same((await call(sim, 'GET', `${REPO}/statuses/${SHA2}`)).body, [], 'a commit without statuses lists none');
  t.same(sim.violations, []);
});

t.test('pagination: limit 30 by default, at most 50; Link (next,last,first,prev) and X-Total-Count', async (t) => {
  const sim = await setup(t);
  for (let i = 0; i < 60; i++) await post(sim, SHA, { state: 'pending', context: `c${i}` });
  const first = await call(sim, 'GET', `${REPO}/statuses/${SHA}?sort=leastindex`);
  t.equal((first.body as unknown[]).length, 30);
  t.equal(first.headers.get('x-total-count'), '60');
  t.match(first.headers.get('link'), /page=2[^>]*>; rel="next",<[^>]*page=2[^>]*>; rel="last"$/);
  const big = await call(sim, 'GET', `${REPO}/statuses/${SHA}?sort=leastindex&limit=100&page=2`);
  t.same(
    (big.body as Array<{ id: number }>).map((s) => s.id),
    [10, 9, 8, 7, 6, 5, 4, 3, 2, 1],
    'page 2 of 50',
  );
  t.match(big.headers.get('link'), /rel="first",<[^>]*page=1[^>]*>; rel="prev"$/);
  t.notMatch(big.headers.get('link'), /rel="next"/);
  t.same(sim.violations, []);
});

t.test('authentication: 401 without a token or with a bad one, reads included; /version is public', async (t) => {
  const sim = await setup(t);
  t.match(await call(sim, 'GET', `${REPO}/statuses/${SHA}`, { token: null }), { status: 401, body: { message: 'token is required' } });
  t.match(await call(sim, 'GET', `${REPO}/statuses/${SHA}`, { token: 'wrong' }), { status: 401 });
  t.match(await post(sim, SHA, { state: 'success' }, { token: 'wrong' }), { status: 401 });
  t.match(await call(sim, 'GET', 'user', { token: 'wrong' }), { status: 401 });
  const user = await call(sim, 'GET', 'user');
  t.match(user, { status: 200, body: { login: 'deploy-bridge' } });
  t.same(swagger.response('userGetCurrent', 200, user.body), []);
  t.match(await call(sim, 'GET', 'version', { token: null }), { status: 200, body: { version: String } });
  t.equal(sim.writes().length, 0);
  t.same(sim.violations, []);
});

t.test('404 for an unknown repository or route; 500 for a status on a commit the repository lacks', async (t) => {
  const sim = await setup(t, { repos: ['acme/web'], commits: { 'acme/web': [SHA] } });
  const missing = await call(sim, 'GET', `repos/acme/nope/statuses/${SHA}`);
  t.match(missing, { status: 404, body: { message: "The target couldn't be found." } });
  t.match(await call(sim, 'GET', 'repos/acme'), { status: 404 });
  t.match(await post(sim, SHA2, { state: 'success' }), { status: 500, body: { message: '' } }, 'not 404: Forgejo fails in GetCommit');
  t.match(await post(sim, 'aaaaaaa', { state: 'success' }), { status: 201 }, 'a short SHA of a known commit is expanded');
  t.same(
    sim.statuses('acme', 'web', SHA).map((s) => s.index),
    [1],
  );
  t.match(await call(sim, 'GET', 'repos/ACME/Web'), { status: 200, body: { full_name: 'ACME/Web' } }, 'names ignore case');
  t.same(sim.violations, []);
});

t.test('violations: a body or query Forgejo would silently misread is recorded (and the body refused)', async (t) => {
  const sim = await setup(t);
  const wrongName = await post(sim, SHA, { status: 'success' });
  t.equal(wrongName.status, 422);
  t.match(sim.violations[0], { kind: 'body', errors: [/"status" is not defined by Forgejo/] });
  t.equal((await post(sim, SHA, { state: 'in_progress' })).status, 422);
  t.match(sim.violations[1], { kind: 'body', errors: [/state must be one of pending, success, error, failure, warning/] });
  const perPage = await call(sim, 'GET', `${REPO}/statuses/${SHA}?per_page=100`);
  t.equal(perPage.status, 200, 'Forgejo ignores per_page');
  t.match(sim.violations[2], { kind: 'query', errors: [/"per_page" is not defined by Forgejo/] });
  t.equal(sim.writes().length, 0);
});

t.test('by ref and combined status: branches resolve; newest per context; the worst state; {} for none', async (t) => {
  const sim = await setup(t, { branches: { 'acme/web': { main: SHA } } });
  await post(sim, SHA, { state: 'pending', context: 'ci' });
  await post(sim, SHA, { state: 'failure', context: 'deploy' });
  await post(sim, SHA, { state: 'success', context: 'ci' });
  const byRef = await call(sim, 'GET', `${REPO}/commits/main/statuses?sort=leastindex`);
  t.same(
    (byRef.body as Array<{ id: number }>).map((s) => s.id),
    [3, 2, 1],
  );
  const combined = await call(sim, 'GET', `${REPO}/commits/main/status`);
  t.match(combined.body, { state: 'failure', sha: SHA, total_count: 2, repository: { default_branch: 'main' } });
  t.same(
    (combined.body as { statuses: Array<{ context: string; status: string }> }).statuses.map((s) => `${s.context}:${s.status}`),
    ['ci:success', 'deploy:failure'],
  );
  t.same((await call(sim, 'GET', `${REPO}/commits/${SHA2}/status`)).body, {}, 'no statuses: an empty object');
  t.same(sim.violations, []);
});

t.test('faults: Retry-After on 429/503, afterWork, hangs and resets', async (t) => {
  const sim = await setup(t);
  sim.inject({ method: 'POST', ...retryAfterFault(7) });
  sim.inject({ method: 'GET', ...retryAfterFault('Wed, 21 Oct 2015 07:28:00 GMT', 503) });
  const limited = await post(sim, SHA, { state: 'pending' });
  t.match(limited, { status: 429, body: 'Too Many Requests' });
  t.equal(limited.headers.get('retry-after'), '7');
  t.equal((await call(sim, 'GET', `${REPO}/statuses/${SHA}`)).headers.get('retry-after'), 'Wed, 21 Oct 2015 07:28:00 GMT');
  sim.inject({ method: 'POST', path: /\/statuses\//, afterWork: 502 });
  t.equal((await post(sim, SHA, { state: 'bogus' })).status, 422, 'a request that does no work leaves the fault armed');
  t.equal((await post(sim, SHA, { state: 'pending' })).status, 502);
  t.equal(sim.statuses('acme', 'web', SHA).length, 1, 'the status was stored all the same');
  sim.inject({ path: '/user', hang: true });
  await t.rejects(call(sim, 'GET', 'user', { signal: AbortSignal.timeout(100) }), 'a hung request never answers');
  sim.inject({ path: '/user', reset: true });
  await t.rejects(call(sim, 'GET', 'user'), 'a reset connection');
  t.equal((await call(sim, 'GET', 'user')).status, 200, 'faults are used up');
  t.equal(sim.writes().length, 1);
  sim.reset();
  t.same([sim.requests.length, sim.violations.length, sim.statuses('acme', 'web', SHA).length], [0, 0, 0], 'reset forgets everything');
});

t.test('a sub-path install: the web base URL ends in the sub-path, the API is below it', async (t) => {
  const sim = await setup(t, { pathPrefix: '/forgejo/' });
  t.match(sim.url, /\/forgejo$/);
  t.equal(sim.apiUrl, `${sim.url}/api/v1`);
  t.equal((await post(sim, SHA, { state: 'success' })).status, 201);
  const outside = await fetch(sim.url.replace(/\/forgejo$/, '/api/v1/version'));
  t.equal(outside.status, 404, 'nothing is served outside the sub-path');
  t.equal(sim.requests[0]?.path, `/repos/acme/web/statuses/${SHA}`, 'recorded paths are below /api/v1');
  const repo = await call(sim, 'GET', REPO);
  t.match(repo.body, { html_url: `${sim.url}/acme/web`, url: `${sim.apiUrl}/repos/acme/web` });
  t.same(sim.violations, []);
});

t.test('request hooks: drop a request on arrival (never applied) or once applied (answer lost)', async (t) => {
  const sim = await setup(t);
  const seen: string[] = [];
  sim.hook({ when: 'before', method: 'POST', run: () => 'drop' });
  sim.hook({
    when: 'after',
    method: 'POST',
    run: (r) => {
      seen.push(`${r.method} ${r.status ?? '-'}`);
      return 'drop';
    },
  });
  await t.rejects(post(sim, SHA, { state: 'pending' }), 'dropped before');
  t.equal(sim.statuses('acme', 'web', SHA).length, 0, 'not applied');
  await t.rejects(post(sim, SHA, { state: 'pending' }), 'dropped after');
  t.equal(sim.statuses('acme', 'web', SHA).length, 1, 'applied, the answer lost');
  t.same(seen, ['POST 201']);
  t.equal(sim.writes().length, 1);
  t.match(await post(sim, SHA, { state: 'success' }), { status: 201, body: { id: 2 } }, 'hooks are used up');
});

const CHEAP = 'stat=false&verification=false&files=false';

t.test('git commits: a registered commit answers its dates, any other full SHA the default date; reads are not writes', async (t) => {
  const sim = await setup(t, { defaultCommitDate: '2026-11-01T08:00:00Z' });
  sim.commit('acme', 'web', SHA, { committedAt: '2026-11-30T10:00:00+02:00', authoredAt: '2026-11-29T09:30:00Z' });
  const got = await call(sim, 'GET', `${REPO}/git/commits/${SHA}?${CHEAP}`);
  t.match(got, {
    status: 200,
    body: {
      sha: SHA,
      created: '2026-11-30T10:00:00+02:00',
      commit: { committer: { date: '2026-11-30T10:00:00+02:00' }, author: { date: '2026-11-29T09:30:00Z' } },
      url: `${sim.apiUrl}/repos/acme/web/git/commits/${SHA}`,
    },
  });
  t.match(await call(sim, 'GET', `${REPO}/git/commits/${SHA2}?${CHEAP}`), {
    status: 200,
    body: { commit: { committer: { date: '2026-11-01T08:00:00Z' }, author: { date: '2026-11-01T08:00:00Z' } } },
  });
  t.equal(sim.commitReads().length, 2);
  t.same(sim.writes(), []);
  t.same(sim.violations, [], 'both answers match the Commit definition');
});

t.test('git commits: the default date is an hour before the start, in whole seconds', async (t) => {
  const sim = await setup(t, { clock: () => Date.parse('2026-12-01T12:00:00.750Z') });
  t.match(await call(sim, 'GET', `${REPO}/git/commits/${SHA}`), {
    status: 200,
    body: { commit: { committer: { date: '2026-12-01T11:00:00Z' } } },
  });
});

t.test('git commits: 404 for a missing commit (and a ref it does not hold), 422 for no valid ref; reset() forgets', async (t) => {
  const sim = await setup(t, { repos: ['acme/web'] });
  sim.missingCommit('acme', 'web', SHA);
  t.match(await call(sim, 'GET', `${REPO}/git/commits/${SHA}?${CHEAP}`), {
    status: 404,
    body: { message: "The target couldn't be found." },
  });
  t.match(await call(sim, 'GET', `${REPO}/git/commits/no-such-branch`), { status: 404 });
  t.match(await call(sim, 'GET', `${REPO}/git/commits/a..b`), { status: 422, body: { message: 'no valid ref or sha: a..b' } });
  t.match(await call(sim, 'GET', `${REPO}/git/commits/${encodeURIComponent('x y')}`), { status: 422 });
  t.match(await call(sim, 'GET', `repos/acme/nope/git/commits/${SHA}`), { status: 404 }, 'an unknown repository');
  t.match(await call(sim, 'GET', `${REPO}/git/commits/${SHA}`, { token: null }), { status: 401 }, 'reads need the token');
  t.equal(sim.commitReads().length, 6);
  t.same(sim.violations, [], 'the 404 and 422 bodies match notFound and validationError');
  sim.reset();
  t.equal((await call(sim, 'GET', `${REPO}/git/commits/${SHA}`)).status, 200);
});

t.test('git commits: a query parameter the swagger does not have is recorded, and ignored as Forgejo does', async (t) => {
  const sim = await setup(t);
  t.equal((await call(sim, 'GET', `${REPO}/git/commits/${SHA}?stats=false`)).status, 200);
  t.match(sim.violations, [{ operation: 'repoGetSingleCommit', kind: 'query', errors: [/"stats" is not defined by Forgejo/] }]);
});

t.test('a repository that does not exist is 404, also under a sub-path: none exists by accident', async (t) => {
  const sim = await setup(t, { pathPrefix: '/forgejo' });
  t.match(sim.apiUrl, /\/forgejo\/api\/v1$/);
  const status = (path: string) => call(sim, 'POST', `${path}/statuses/${SHA}`, { body: { state: 'success', context: 'c' } });
  t.equal((await status('repos/forgejo/acme')).status, 404, 'the sub-path taken for an owner');
  t.equal((await status('repos/other/web')).status, 404, 'an owner the simulator was not given');
  t.equal((await status(REPO)).status, 201, 'a repository of acme, the default owner');
  const listed = await setup(t, { repos: ['acme/shop'] });
  t.equal((await call(listed, 'GET', `${REPO}/statuses/${SHA}`)).status, 404, 'with repos listed, only those exist');
  const owners = await setup(t, { owners: ['globex'] });
  t.equal((await call(owners, 'GET', `${REPO}/statuses/${SHA}`)).status, 404, 'with owners given, only theirs');
  t.equal((await call(owners, 'GET', `repos/globex/web/statuses/${SHA}`)).status, 200);
});
