import t, { type Test } from 'tap';
import { Octokit } from 'octokit';
import { startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions } from './github-sim.js';
import { loadFixture, openApiAjv, type EndpointKey } from './github-sim/spec.js';

const TOKEN = 'ghs_test_token';
const SHA = 'a'.repeat(40);
const SHA2 = '0123456789abcdef0123456789abcdef01234567';
const repo = { owner: 'acme', repo: 'web' };

async function setup(t: Test, options: GitHubSimulatorOptions = {}): Promise<{ sim: GitHubSimulator; gh: Octokit }> {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], ...options });
  t.teardown(() => sim.close());
  return { sim, gh: client(sim.url) };
}

function client(baseUrl: string, auth: string | null = TOKEN): Octokit {
  return new Octokit({
    auth: auth ?? undefined,
    baseUrl,
    retry: { enabled: false },
    throttle: { enabled: false },
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
}

/** A response schema from the fixture, compiled here independently of the simulator's own checks. */
function responseSchema(endpoint: EndpointKey, status: number): (data: unknown) => boolean {
  const schema = loadFixture().endpoints[endpoint].responses[String(status)]?.schema;
  if (schema === undefined) throw new Error(`no schema for ${endpoint} ${status}`);
  return openApiAjv().compile(schema);
}

/** The error a promise rejects with; undefined (so the match fails) when it resolves. */
async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (err: unknown) => err,
  );
}

interface Created {
  id: number;
  sha: string;
  ref: string;
}

/** Creates a deployment through octokit, returning the 201 body. */
async function create(gh: Octokit, over: Record<string, unknown> = {}): Promise<Created> {
  const res = await gh.request('POST /repos/{owner}/{repo}/deployments', body(over));
  return res.data as Created;
}

const body = (over: Record<string, unknown> = {}) => ({
  ...repo,
  ref: SHA,
  environment: 'staging',
  auto_merge: false,
  required_contexts: [],
  payload: {},
  ...over,
});

t.test('create answers a full deployment that matches the GitHub response schema', async (t) => {
  const { sim, gh } = await setup(t);
  const res = await gh.rest.repos.createDeployment({
    ...repo,
    ref: SHA,
    required_contexts: [],
    auto_merge: false,
    payload: '{"app":"web"}',
    description: 'first',
  });
  t.equal(res.status, 201);
  const d = res.data as Record<string, unknown>;
  t.ok(responseSchema('POST /repos/{owner}/{repo}/deployments', 201)(d), 'create body matches the spec');
  t.match(d, {
    sha: SHA,
    ref: SHA,
    task: 'deploy',
    environment: 'production',
    original_environment: 'production',
    production_environment: true,
    transient_environment: false,
    payload: { app: 'web' },
    description: 'first',
  });
  t.equal(d.url, `${sim.url}/repos/acme/web/deployments/${String(d.id)}`);
  t.equal(d.statuses_url, `${d.url as string}/statuses`);
  t.equal(res.headers['x-ratelimit-remaining'], '4999');

  const status = await gh.rest.repos.createDeploymentStatus({
    ...repo,
    deployment_id: d.id as number,
    state: 'in_progress',
    log_url: 'https://ci.example/1',
  });
  t.ok(responseSchema('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', 201)(status.data), 'status body matches the spec');
  t.match(status.data, {
    state: 'in_progress',
    environment: 'production',
    log_url: 'https://ci.example/1',
    target_url: 'https://ci.example/1',
  });
  t.equal(status.headers.location, status.data.url);
  const list = await gh.rest.repos.listDeployments(repo);
  t.ok(responseSchema('GET /repos/{owner}/{repo}/deployments', 200)(list.data), 'list body matches the spec');
  const statuses = await gh.rest.repos.listDeploymentStatuses({ ...repo, deployment_id: d.id as number });
  t.ok(responseSchema('GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', 200)(statuses.data));
  t.same(sim.violations, []);
  t.same(
    sim.writes().map((w) => `${w.method} ${w.path}`),
    ['POST /repos/acme/web/deployments', `POST /repos/acme/web/deployments/${String(d.id)}/statuses`],
  );
});

t.test('list filters by exact sha, ref, task and environment, newest first', async (t) => {
  const { gh } = await setup(t);
  const a = await create(gh, { environment: 'staging' });
  const b = await create(gh, { environment: 'production', ref: SHA2 });
  const c = await create(gh, { environment: 'staging', task: 'deploy:migrate' });
  const ids = async (q: Record<string, string>) => (await gh.rest.repos.listDeployments({ ...repo, ...q })).data.map((d) => d.id);
  t.same(await ids({}), [c.id, b.id, a.id]);
  t.same(await ids({ environment: 'staging' }), [c.id, a.id]);
  t.same(await ids({ environment: 'stag' }), [], 'no prefix match');
  t.same(await ids({ sha: SHA, task: 'deploy' }), [a.id]);
  t.same(await ids({ ref: SHA2 }), [b.id]);
  t.same((await gh.rest.repos.listDeployments({ owner: 'acme', repo: 'other' })).data, [], 'other repos are separate');
});

t.test('statuses are listed newest first; a status may move the environment', async (t) => {
  const { sim, gh } = await setup(t);
  const d = await create(gh);
  const id = d.id;
  await gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: id, state: 'queued' });
  await gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: id, state: 'failure', environment: 'qa', description: 'boom' });
  await gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: id, state: 'error' });
  const list = await gh.rest.repos.listDeploymentStatuses({ ...repo, deployment_id: id });
  t.same(
    list.data.map((s) => [s.state, s.environment]),
    [
      ['error', 'qa'],
      ['failure', 'qa'],
      ['queued', 'staging'],
    ],
  );
  const [snap] = sim.deployments('acme', 'web');
  t.same(
    snap?.statuses.map((s) => s.state),
    ['queued', 'failure', 'error'],
    'oldest first in the snapshot',
  );
  t.equal(snap?.environment, 'qa');
  t.equal(snap?.original_environment, 'staging');
});

t.test('auto_inactive: GitHub deactivates earlier successful non-production, non-transient siblings', async (t) => {
  const { sim, gh } = await setup(t);
  const make = async (over: Record<string, unknown>) => (await create(gh, over)).id;
  const succeed = (id: number, extra: { auto_inactive?: boolean } = {}) =>
    gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: id, state: 'success', ...extra });
  const old = await make({ environment: 'staging' });
  const failed = await make({ environment: 'staging' });
  const transient = await make({ environment: 'staging', transient_environment: true });
  const prodOld = await make({ environment: 'production' });
  const other = await make({ environment: 'qa' });
  await succeed(old);
  await gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: failed, state: 'failure' });
  await succeed(transient);
  await succeed(prodOld);
  await succeed(other);
  const writesBefore = sim.writes().length;

  const fresh = await make({ environment: 'staging' });
  await succeed(fresh);
  const prodNew = await make({ environment: 'production' });
  await succeed(prodNew);
  const last = (id: number) =>
    sim
      .deployments('acme', 'web')
      .find((d) => d.id === id)
      ?.statuses.at(-1);
  t.match(last(old), { state: 'inactive', addedBy: 'github', creator: { login: 'github' } });
  t.match(last(failed), { state: 'failure' }, 'only deployments whose latest status is success');
  t.match(last(transient), { state: 'success' }, 'transient deployments are left alone');
  t.match(last(prodOld), { state: 'success' }, 'production deployments are left alone');
  t.match(last(other), { state: 'success' }, 'other environments are left alone');
  t.match(last(fresh), { state: 'success', addedBy: 'client' });
  t.equal(sim.writes().length, writesBefore + 4, 'GitHub-added statuses are not client writes');
  const wire = await gh.rest.repos.listDeploymentStatuses({ ...repo, deployment_id: old });
  t.same(
    wire.data.map((s) => s.state),
    ['inactive', 'success'],
    'the inactive status is visible through the API',
  );

  const again = await make({ environment: 'staging' });
  await succeed(again, { auto_inactive: false });
  t.match(last(fresh), { state: 'success' }, 'auto_inactive: false deactivates nothing');
});

t.test('pagination: Link header like GitHub, octokit.paginate walks every page', async (t) => {
  const { gh } = await setup(t);
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push((await create(gh)).id);
  const first = await gh.rest.repos.listDeployments({ ...repo, environment: 'staging', per_page: 2 });
  t.same(
    first.data.map((d) => d.id),
    [ids[4], ids[3]],
  );
  t.match(first.headers.link, /<[^>]+environment=staging[^>]*page=2[^>]*>; rel="next", <[^>]+page=3[^>]*>; rel="last"/);
  const second = await gh.rest.repos.listDeployments({ ...repo, per_page: 2, page: 2 });
  t.match(second.headers.link, /rel="prev".*rel="next".*rel="last".*rel="first"/);
  const all = await gh.paginate(gh.rest.repos.listDeployments, { ...repo, per_page: 2 });
  t.same(
    all.map((d) => d.id),
    [...ids].reverse(),
  );
  t.same((await gh.rest.repos.listDeployments({ ...repo, per_page: 2, page: 9 })).data, [], 'past the end: empty page');

  const statusIds: number[] = [];
  for (let i = 0; i < 3; i++)
    statusIds.push((await gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: ids[0]!, state: 'queued' })).data.id);
  const statuses = await gh.paginate(gh.rest.repos.listDeploymentStatuses, { ...repo, deployment_id: ids[0]!, per_page: 1 });
  t.same(
    statuses.map((s) => s.id),
    [...statusIds].reverse(),
  );
});

t.test('per_page is capped at 100 and defaults to 30', async (t) => {
  const { gh } = await setup(t);
  for (let i = 0; i < 101; i++) await create(gh);
  const big = await gh.rest.repos.listDeployments({ ...repo, per_page: 500 });
  t.equal(big.data.length, 100);
  t.match(big.headers.link, /per_page=100&page=2>; rel="next"/);
  t.equal((await gh.rest.repos.listDeployments(repo)).data.length, 30);
});

t.test('authentication: token and Bearer accepted, missing or unknown token is 401', async (t) => {
  const { sim } = await setup(t);
  await t.resolves(client(sim.url).rest.repos.listDeployments(repo));
  const bearer = await fetch(`${sim.url}/repos/acme/web/deployments`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(5000),
  });
  t.equal(bearer.status, 200);
  t.match(await failure(client(sim.url, 'wrong').rest.repos.listDeployments(repo)), {
    status: 401,
    response: { data: { message: 'Bad credentials' } },
  });
  t.match(await failure(client(sim.url, null).rest.repos.listDeployments(repo)), { status: 401 });
  t.equal(sim.writes().length, 0);
});

t.test('not found: unlisted repo, unknown or foreign deployment, unknown route', async (t) => {
  const { sim, gh } = await setup(t, { repos: ['acme/web', 'acme/api'] });
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', body({ repo: 'secret' }))), {
    status: 404,
    response: { data: { message: 'Not Found' } },
  });
  const d = await create(gh, { owner: 'ACME' });
  t.ok(d.id > 0, 'repository names are case-insensitive');
  t.equal((await gh.rest.repos.getDeployment({ ...repo, deployment_id: d.id })).data.id, d.id);
  t.match(
    await failure(gh.rest.repos.getDeployment({ owner: 'acme', repo: 'api', deployment_id: d.id })),
    { status: 404 },
    'ids are per repository',
  );
  t.match(await failure(gh.rest.repos.createDeploymentStatus({ owner: 'acme', repo: 'api', deployment_id: d.id, state: 'success' })), {
    status: 404,
  });
  t.match(await failure(gh.rest.repos.listDeploymentStatuses({ ...repo, deployment_id: 999999 })), { status: 404 });
  t.match(await failure(gh.request('GET /repos/{owner}/{repo}/pulls', repo)), {
    status: 404,
    response: { data: { message: 'Not Found', documentation_url: /docs\.github\.com/ } },
  });
  t.same(sim.deployments('acme', 'api'), []);
});

t.test('invalid requests: 422 in GitHub words, recorded as violations', async (t) => {
  const { sim, gh } = await setup(t);
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: SHA, auto_merge: 'no' } as never)), {
    status: 422,
    response: {
      data: {
        message: 'Invalid request.\n\nFor \'properties/auto_merge\', "no" is not a boolean.',
        documentation_url: /create-a-deployment/,
      },
    },
  });
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', { ...repo, environment: 'x' } as never)), {
    status: 422,
    message: /"ref" wasn't supplied/,
  });
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', body({ payload: 'not json' }))), {
    status: 422,
    response: { data: { message: 'Validation Failed' } },
  });
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', body({ payload: 7 }))), {
    status: 422,
    message: /properties\/payload/,
  });
  const d = await create(gh);
  t.match(await failure(gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: d.id, state: 'done' as never })), {
    status: 422,
    message: /is not a member of/,
  });
  t.match(
    await failure(gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: d.id, state: 'success', description: 'x'.repeat(141) })),
    { status: 422, response: { data: { errors: [{ field: 'description' }] } } },
  );
  await t.resolves(gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: d.id, state: 'success', description: 'x'.repeat(140) }));
  t.match(await failure(gh.request('GET /repos/{owner}/{repo}/deployments', { ...repo, per_page: 'many' } as never)), {
    status: 422,
    message: /per_page/,
  });
  const raw = await fetch(`${sim.url}/repos/acme/web/deployments`, {
    method: 'POST',
    body: '{"ref":',
    headers: { authorization: `token ${TOKEN}` },
    signal: AbortSignal.timeout(5000),
  });
  t.equal(raw.status, 400);
  t.same(
    sim.violations.map((v) => v.kind),
    ['body', 'body', 'semantic', 'body', 'body', 'semantic', 'query', 'json'],
  );
  t.equal(sim.deployments('acme', 'web').length, 1, 'nothing invalid was created');
  t.equal(sim.deployments('acme', 'web')[0]?.statuses.length, 1);
});

t.test('refs: SHAs expand from known commits, unknown refs are 422 "No ref found"', async (t) => {
  const { sim, gh } = await setup(t, { commits: { 'acme/web': [SHA2] } });
  const short = await create(gh, { ref: '0123456' });
  t.match(short, { ref: '0123456', sha: SHA2 });
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', body({ ref: 'fffffff' }))), {
    status: 422,
    response: { data: { message: 'No ref found for: fffffff' } },
  });
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', body({ ref: SHA }))), {
    status: 422,
    message: /No ref found/,
  });
  const branch = await create(gh, { ref: 'main' });
  t.match(branch.sha, /^[0-9a-f]{40}$/);
  t.match(
    await failure(
      gh.request('POST /repos/{owner}/{repo}/deployments', { owner: 'acme', repo: 'api', ref: 'abcdef1', required_contexts: [] }),
    ),
    { status: 422 },
    'short SHA with no known commits',
  );
  t.same(sim.violations, [], 'an unknown ref is not a malformed request');
});

t.test('status checks (409) and auto-merge (202) unless the body opts out', async (t) => {
  const { sim, gh } = await setup(t, {
    statusChecks: {
      'acme/web': [
        { context: 'ci/build', state: 'failure' },
        { context: 'ci/lint', state: 'success' },
      ],
    },
    behindRefs: { 'acme/web': ['topic'] },
  });
  t.match(await failure(gh.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: SHA, auto_merge: false })), {
    status: 409,
    response: {
      data: {
        message: `Conflict: Commit status checks failed for ${SHA}.`,
        errors: [{ field: 'required_contexts', contexts: [{ context: 'ci/build', state: 'failure' }] }],
      },
    },
  });
  t.match(
    await failure(
      gh.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: SHA, auto_merge: false, required_contexts: ['ci/build'] }),
    ),
    { status: 409 },
  );
  t.equal(
    (await gh.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: SHA, auto_merge: false, required_contexts: ['ci/lint'] }))
      .status,
    201,
  );
  const merged = await gh.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: 'topic', required_contexts: [] });
  t.equal(merged.status, 202);
  t.match(merged.data, { message: /^Auto-merged .* into topic/ });
  t.equal(
    (await gh.request('POST /repos/{owner}/{repo}/deployments', body({ ref: 'topic' }))).status,
    201,
    'auto_merge: false deploys as is',
  );
  t.equal(sim.deployments('acme', 'web').length, 2);
  t.same(sim.violations, [], 'the 202 body matches the spec');
});

t.test('delete: only inactive deployments unless alone in the environment', async (t) => {
  const { sim, gh } = await setup(t);
  const a = (await create(gh)).id;
  const b = (await create(gh)).id;
  t.match(await failure(gh.rest.repos.deleteDeployment({ ...repo, deployment_id: a })), { status: 422 });
  await gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: a, state: 'inactive' });
  t.equal((await gh.rest.repos.deleteDeployment({ ...repo, deployment_id: a })).status, 204);
  t.equal((await gh.rest.repos.deleteDeployment({ ...repo, deployment_id: b })).status, 204, 'the only one left');
  t.match(await failure(gh.rest.repos.deleteDeployment({ ...repo, deployment_id: b })), { status: 404 });
  t.same(sim.deployments('acme', 'web'), []);
  t.equal(sim.writes().filter((w) => w.method === 'DELETE').length, 2);
  t.same(sim.violations, [], 'the 422 body matches the spec');
});

t.test('GitHub Enterprise Server path prefix', async (t) => {
  const { sim, gh } = await setup(t, { pathPrefix: '/api/v3' });
  t.match(sim.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/v3$/);
  for (let i = 0; i < 3; i++) await create(gh);
  const page = await gh.rest.repos.listDeployments({ ...repo, per_page: 2 });
  t.match(page.headers.link, /\/api\/v3\/repos\/acme\/web\/deployments\?/);
  t.match(page.data[0]?.url, `${sim.url}/repos/acme/web/deployments/`);
  t.equal((await gh.paginate(gh.rest.repos.listDeployments, { ...repo, per_page: 2 })).length, 3);
  t.match(await failure(client(sim.url.replace('/api/v3', '')).rest.repos.listDeployments(repo)), { status: 404 }, 'outside the prefix');
  t.same(
    sim.requests.slice(0, 1).map((r) => r.path),
    ['/repos/acme/web/deployments'],
    'paths are recorded without the prefix',
  );
});

t.test('rate limit: headers count down, /rate_limit reports, exhaustion is a primary 403', async (t) => {
  const { sim, gh } = await setup(t, { requestsPerHour: 3 });
  const one = await gh.rest.repos.listDeployments(repo);
  t.match(one.headers, { 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2', 'x-ratelimit-used': '1', 'x-ratelimit-resource': 'core' });
  t.ok(Number(one.headers['x-ratelimit-reset']) > Date.now() / 1000);
  await gh.rest.repos.listDeployments(repo);
  const limits = await gh.rest.rateLimit.get();
  t.match(limits.data, { rate: { limit: 3, used: 2, remaining: 1 }, resources: { core: { remaining: 1 } } });
  await gh.rest.repos.listDeployments(repo);
  t.match(await failure(gh.rest.repos.listDeployments(repo)), {
    status: 403,
    response: { headers: { 'x-ratelimit-remaining': '0' }, data: { message: /API rate limit exceeded/ } },
  });
  sim.reset();
  t.equal((await gh.rest.repos.listDeployments(repo)).headers['x-ratelimit-remaining'], '2', 'reset() refills');
  t.equal(sim.requests.length, 1, 'reset() forgets requests');
});

t.test('git commits: a registered commit answers its dates, any other full SHA the default date', async (t) => {
  const { sim, gh } = await setup(t, { defaultCommitDate: '2026-11-01T08:00:00Z' });
  sim.commit('acme', 'web', SHA, { committedAt: '2026-11-30T10:00:00+02:00', authoredAt: '2026-11-29T09:30:00Z' });
  const got = await gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: SHA });
  t.match(got.data, {
    sha: SHA,
    committer: { date: '2026-11-30T08:00:00Z' },
    author: { date: '2026-11-29T09:30:00Z' },
    url: `${sim.url}/repos/acme/web/git/commits/${SHA}`,
  });
  const other = await gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: SHA2 });
  t.match(other.data, { sha: SHA2, committer: { date: '2026-11-01T08:00:00Z' }, author: { date: '2026-11-01T08:00:00Z' } });
  t.equal(sim.commitReads().length, 2);
  t.same(sim.writes(), [], 'a read is not a write');
  t.equal(other.headers['x-ratelimit-used'], '2', 'each read counts against the primary budget');
  t.same(sim.violations, [], 'both answers match the Git Commit schema');
});

t.test('git commits: the default date is an hour before the start, in whole seconds', async (t) => {
  const before = Date.now();
  const { gh } = await setup(t);
  const got = await gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: SHA });
  const date = (got.data as { committer: { date: string } }).committer.date;
  t.match(date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.ok(Math.abs(Date.parse(date) - (before - 3_600_000)) < 2000, date);
});

t.test('git commits: a missing commit is a Basic Error 404; reset() forgets it', async (t) => {
  const { sim, gh } = await setup(t);
  sim.missingCommit('acme', 'web', SHA);
  t.match(await failure(gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: SHA })), {
    status: 404,
    response: { data: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/git/commits#get-a-commit-object' } },
  });
  t.match(await failure(gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: 'abc' })), {
    status: 404,
  });
  t.same(sim.violations, []);
  sim.reset();
  t.equal((await gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: SHA })).status, 200);
});

t.test('git commits: a query parameter the description does not have is a violation', async (t) => {
  const { sim, gh } = await setup(t);
  await gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: SHA, stat: 'false' });
  t.match(sim.violations, [{ kind: 'query', errors: ['unknown query parameter stat'], data: { stat: 'false' } }]);
});

t.test('git commits: a repository that does not exist is 404', async (t) => {
  const { sim, gh } = await setup(t, { repos: ['acme/web'] });
  t.match(
    await failure(gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { owner: 'acme', repo: 'api', commit_sha: SHA })),
    {
      status: 404,
    },
  );
  t.equal(sim.commitReads().length, 1);
});

t.test(
  'git commits: reads pass full secondary windows (only content-generating requests count) but spend the primary budget',
  async (t) => {
    const { sim, gh } = await setup(t, {
      writesPerMinute: 1,
      secondaryLimits: { windows: [{ count: 1, ms: 60_000 }] },
      requestsPerHour: 4,
    });
    await create(gh);
    t.match(await failure(create(gh)), { status: 403 }, 'the write windows are full');
    const read = () => gh.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: SHA });
    t.equal((await read()).status, 200);
    t.equal((await read()).status, 200, 'a second read in the same minute');
    t.equal(sim.secondaryRefusals(), 1, 'only the second create was refused');
    t.match(
      await failure(read()),
      { status: 403, response: { headers: { 'x-ratelimit-remaining': '0' } } },
      'the fifth request of the hour',
    );
  },
);
