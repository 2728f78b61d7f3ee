import t, { type Test } from 'tap';
import { rateLimitFault, startGitLabSimulator, type GitLabSimulator, type GitLabSimulatorOptions } from './gitlab-sim.js';
import { compileSpec } from './gitlab-sim/spec.js';
import { guessTier } from './gitlab-sim/state.js';

const TOKEN = 'glpat-bridge';
const OTHER = 'glpat-someone';
const SHA = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
const PROJECT = 'platform/team/app';
const ID = encodeURIComponent(PROJECT);

const PROJECTS: GitLabSimulatorOptions['projects'] = [
  { path: PROJECT, defaultBranch: 'main', branches: { main: [SHA], 'feature/x': [SHA, SHA2] }, tags: { 'v1.0.0': SHA } },
  { path: 'platform/locked', reporters: ['deploy-bridge'] },
  { path: 'platform/hidden', members: ['someone'] },
];

async function setup(t: Test, options: GitLabSimulatorOptions = {}): Promise<GitLabSimulator> {
  const sim = await startGitLabSimulator({ tokens: { [TOKEN]: 'deploy-bridge', [OTHER]: 'someone' }, projects: PROJECTS, ...options });
  t.teardown(() => sim.close());
  return sim;
}

/** The fields of GitLab's entities these tests read. */
interface Entity {
  id: number;
  iid: number;
  status: string;
  state: string;
  tier: string;
  username: string;
  path_with_namespace: string;
  default_branch: string;
  finished_at: string | null;
  environment: { name: string };
  last_deployment: { id: number };
}

interface Answer {
  status: number;
  headers: Headers;
  /** An entity, or a list of them (the test knows which it asked for). */
  body: Entity & Entity[];
}

async function call(
  sim: GitLabSimulator,
  method: string,
  path: string,
  o: { token?: string | null; body?: unknown } = {},
): Promise<Answer> {
  const token = o.token === undefined ? TOKEN : o.token;
  const res = await fetch(`${sim.apiUrl}/${path}`, {
    method,
    headers: { ...(token === null ? {} : { 'private-token': token }), 'content-type': 'application/json' },
    ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain text (a throttle's "Retry later")
  }
  return { status: res.status, headers: res.headers, body: body as Answer['body'] };
}

const create = (sim: GitLabSimulator, body: Record<string, unknown> = {}, token?: string) =>
  call(sim, 'POST', `projects/${ID}/deployments`, {
    token,
    body: { environment: 'staging', sha: SHA, ref: 'main', tag: false, status: 'running', ...body },
  });
const update = (sim: GitLabSimulator, id: number, status: string) =>
  call(sim, 'PUT', `projects/${ID}/deployments/${id}`, { body: { status } });

const spec = compileSpec();

t.test('auth: PRIVATE-TOKEN; none or an unknown one is 401 in GitLab shape; GET /user names the token user', async (t) => {
  const sim = await setup(t);
  t.same((await call(sim, 'GET', 'user', { token: null })).body, { message: '401 Unauthorized' });
  t.equal((await call(sim, 'GET', 'user', { token: 'nope' })).status, 401);
  const me = await call(sim, 'GET', 'user');
  t.equal(me.status, 200);
  t.equal(me.body.username, 'deploy-bridge');
  t.same(spec.response('getApiV4User', 200, me.body), []);
  t.equal(sim.requests.at(-1)?.credential, 'private-token');
  t.same(sim.violations, []);
});

t.test('projects by URL-encoded path (case-insensitive) or id; unknown or hidden 404; a Reporter write 403', async (t) => {
  const sim = await setup(t);
  const p = await call(sim, 'GET', `projects/${encodeURIComponent('Platform/Team/App')}`);
  t.equal(p.status, 200);
  t.equal(p.body.path_with_namespace, PROJECT);
  t.equal(p.body.default_branch, 'main');
  t.equal((await call(sim, 'GET', `projects/${p.body.id}`)).body.path_with_namespace, PROJECT);
  t.equal((await call(sim, 'GET', `projects/${PROJECT}`)).status, 404, 'an unencoded path is not a project route');
  t.same((await call(sim, 'GET', 'projects/platform%2Fnope/deployments')).body, { message: '404 Project Not Found' });
  t.equal((await call(sim, 'GET', 'projects/platform%2Fhidden/deployments')).status, 404);
  t.equal((await call(sim, 'GET', 'projects/platform%2Fhidden/deployments', { token: OTHER })).status, 200);
  t.equal((await call(sim, 'GET', 'projects/platform%2Flocked/deployments')).status, 200, 'a Reporter reads');
  const w = await call(sim, 'POST', 'projects/platform%2Flocked/deployments', {
    body: { environment: 'staging', sha: SHA, ref: 'main', tag: false, status: 'running' },
  });
  t.same([w.status, w.body], [403, { message: '403 Forbidden' }]);
  t.equal(sim.writes().length, 0);
});

t.test('create: environment on demand with a guessed tier, the token user, valid against the description', async (t) => {
  const sim = await setup(t);
  const a = await create(sim, { environment: 'production/eu-1' });
  t.equal(a.status, 201);
  t.same(spec.response('postApiV4ProjectsIdDeployments', 201, a.body), []);
  t.match(a.body, { iid: 1, ref: 'main', sha: SHA, status: 'running', user: { username: 'deploy-bridge' }, deployable: null });
  t.equal(a.body.environment.name, 'production/eu-1');
  const envs = await call(sim, 'GET', `projects/${ID}/environments`);
  t.equal(envs.body.length, 1);
  t.equal(envs.body[0]?.tier, 'production');
  t.equal(envs.body[0]?.last_deployment.id, a.body.id);
  const b = await create(sim, { environment: 'production/eu-1', sha: SHA2, ref: 'feature/x', status: 'success' }, OTHER);
  t.match(b.body, { iid: 2, status: 'success', user: { username: 'someone' } });
  t.equal(sim.project(PROJECT)?.environments.length, 1, 'the second deployment finds the environment');
  t.equal(sim.writes().length, 2);
  t.same(sim.violations, []);
});

t.test('create: Grape refuses missing and bad parameters (400 {error}); undeclared ones are ignored but recorded', async (t) => {
  const sim = await setup(t);
  const missing = await call(sim, 'POST', `projects/${ID}/deployments`, { body: { environment: 'staging', sha: SHA, status: 'running' } });
  t.same([missing.status, missing.body], [400, { error: 'ref is missing, tag is missing' }]);
  const bad = await create(sim, { status: 'inactive' });
  t.same([bad.status, bad.body], [400, { error: 'status does not have a valid value' }], 'no inactive on GitLab');
  t.equal((await create(sim, { tag: 'false' })).status, 400, 'tag must be a boolean');
  const extra = await create(sim, { payload: { a: 1 } });
  t.equal(extra.status, 201);
  t.match(sim.violations.at(-1)?.errors, [/payload is not a parameter GitLab declares/]);
  t.equal(sim.writes().length, 1);
});

t.test('create: an unknown commit or ref is 400 in the model-validation shape; a bad environment name too', async (t) => {
  const sim = await setup(t);
  t.same((await create(sim, { sha: 'c'.repeat(40) })).body, { message: { sha: ['The commit does not exist'] } });
  t.same((await create(sim, { ref: 'nope' })).body, { message: { ref: ['The branch or tag does not exist'] } });
  const tag = await create(sim, { ref: 'v1.0.0', tag: true });
  t.equal(tag.status, 201, 'a tag is a ref');
  const name = await create(sim, { environment: 'staging/' });
  t.equal(name.status, 400);
  t.match(name.body, { message: { name: [/cannot start or end with/] } });
  t.equal(sim.project(PROJECT)?.environments.length, 1, 'no environment for the refused ones');
});

t.test('update: GitLab status machine: running→running, success→running, success→success refused; failed→success allowed', async (t) => {
  const sim = await setup(t);
  const running = (await create(sim)).body.id;
  const refused = await update(sim, running, 'running');
  t.same([refused.status, refused.body], [400, { message: { status: ['cannot transition via "run"'] } }]);
  t.equal((await update(sim, running, 'success')).body.status, 'success');
  t.same((await update(sim, running, 'running')).body, { message: { status: ['cannot transition via "run"'] } });
  t.same((await update(sim, running, 'success')).body, { message: { status: ['cannot transition via "succeed"'] } });
  const failing = (await create(sim, { status: 'failed', sha: SHA2, ref: 'feature/x' })).body.id;
  t.same((await update(sim, failing, 'failed')).body, { message: { status: ['cannot transition via "drop"'] } });
  const retried = await update(sim, failing, 'success');
  t.equal(retried.status, 200);
  t.ok(retried.body.finished_at, 'finished_at is set');
  t.equal((await call(sim, 'PUT', `projects/${ID}/deployments/999`, { body: { status: 'success' } })).status, 404);
  t.equal(sim.writes().length, 4, 'two creates, two accepted updates');
  t.equal(sim.violations.filter((v) => v.kind === 'semantic').length, 4, 'each refused transition is recorded');
});

t.test('list deployments: environment, status, order_by/sort; updated_* needs order_by=updated_at', async (t) => {
  let now = 1_750_000_000_000;
  const sim = await setup(t, { clock: () => (now += 1000) });
  const a = (await create(sim)).body.id;
  await create(sim, { environment: 'review/x', sha: SHA2, ref: 'feature/x' });
  await update(sim, a, 'success');
  const base = `projects/${ID}/deployments`;
  const st = await call(sim, 'GET', `${base}?environment=staging&status=success`);
  t.same(
    st.body.map((d) => d.id),
    [a],
  );
  t.same(spec.response('getApiV4ProjectsIdDeployments', 200, st.body), []);
  t.same(
    (await call(sim, 'GET', `${base}?sort=desc`)).body.map((d) => d.iid),
    [2, 1],
  );
  t.same((await call(sim, 'GET', `${base}?order_by=updated_at&sort=desc`)).body.map((d) => d.id)[0], a, 'the updated one first');
  const noOrder = await call(sim, 'GET', `${base}?updated_after=2020-01-01T00:00:00Z`);
  t.same([noOrder.status, noOrder.body], [400, { message: '400 Bad request - `updated_at` filter requires `updated_at` sort' }]);
  t.equal((await call(sim, 'GET', `${base}?updated_after=2020-01-01T00:00:00Z&order_by=updated_at`)).body.length, 2);
  t.equal(
    (await call(sim, 'GET', `${base}?finished_after=2020-01-01T00:00:00Z&order_by=finished_at`)).status,
    400,
    'finished_* needs status=success',
  );
  t.equal((await call(sim, 'GET', `${base}?status=inactive`)).status, 400);
  t.equal((await call(sim, 'GET', `${base}?environment=nope`)).body.length, 0);
});

t.test('pagination: per_page (default 20, at most 100), x-next-page, x-total, Link', async (t) => {
  const sim = await startGitLabSimulator({ tokens: { [TOKEN]: 'deploy-bridge' } });
  t.teardown(() => sim.close());
  const id = encodeURIComponent('acme/p');
  for (let i = 0; i < 25; i++)
    await call(sim, 'POST', `projects/${id}/deployments`, {
      body: { environment: `e${i % 2}`, sha: SHA, ref: 'main', tag: false, status: 'success' },
    });
  const first = await call(sim, 'GET', `projects/${id}/deployments`);
  t.equal(first.body.length, 20);
  t.same(
    ['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages'].map((h) => first.headers.get(h)),
    ['1', '20', '2', '', '25', '2'],
  );
  const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
  t.ok(next?.includes('page=2'));
  const second = await fetch(next!, { headers: { 'private-token': TOKEN } });
  t.equal(((await second.json()) as unknown[]).length, 5);
  t.equal(second.headers.get('x-next-page'), '');
  const small = await call(sim, 'GET', `projects/${id}/deployments?per_page=10&page=3`);
  t.same([small.body.length, small.headers.get('x-prev-page'), small.headers.get('x-total-pages')], [5, '2', '3']);
  t.equal((await call(sim, 'GET', `projects/${id}/deployments?per_page=500`)).body.length, 25, 'capped at 100');
});

t.test('environments: GET/PUT external_url and tier, the Kubernetes fields need an agent, stop; 404 for unknown', async (t) => {
  const sim = await setup(t);
  await create(sim, { environment: 'review/feature-x' });
  const env = (await call(sim, 'GET', `projects/${ID}/environments?name=review%2Ffeature-x`)).body[0]!;
  t.equal(env.tier, 'development');
  const base = `projects/${ID}/environments/${env.id}`;
  const put = await call(sim, 'PUT', base, { body: { external_url: 'https://x.preview.example', tier: 'staging' } });
  t.match(put.body, { external_url: 'https://x.preview.example', tier: 'staging' });
  t.same(spec.response('putApiV4ProjectsIdEnvironmentsEnvironmentId', 200, put.body), []);
  t.equal((await call(sim, 'PUT', base, { body: { tier: 'prod' } })).status, 400);
  t.equal((await call(sim, 'PUT', base, { body: { external_url: 'javascript:alert(1)' } })).status, 400);
  t.same((await call(sim, 'PUT', base, { body: { kubernetes_namespace: 'apps' } })).body, {
    message: { kubernetes_namespace: ['must be blank'] },
  });
  const k8s = await call(sim, 'PUT', base, {
    body: {
      cluster_agent_id: 7,
      kubernetes_namespace: 'apps',
      flux_resource_path: 'kustomize.toolkit.fluxcd.io/v1/namespaces/apps/kustomizations/x',
    },
  });
  t.match(k8s.body, { cluster_agent: { id: 7 }, kubernetes_namespace: 'apps' });
  const stop = await call(sim, 'POST', `${base}/stop`);
  t.same([stop.status, stop.body.state], [200, 'stopped'], 'documented 201, answered 200');
  t.equal((await call(sim, 'GET', `projects/${ID}/environments?states=stopped`)).body.length, 1);
  t.equal((await call(sim, 'POST', `${base}/stop`)).status, 200, 'stopping again is harmless');
  t.equal((await call(sim, 'GET', `projects/${ID}/environments/999`)).status, 404);
  t.equal(sim.writes().length, 4, 'create, two accepted PUTs, one stop that changed something');
  await create(sim, { environment: 'review/feature-x', status: 'success' });
  t.equal((await call(sim, 'GET', base)).body.state, 'available', 'a success deploys it again');
});

t.test('commits/:sha/refs: branches (or tags) holding a commit; 404 for an unknown one', async (t) => {
  const sim = await setup(t);
  const refs = await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}/refs?type=branch`);
  t.same(refs.body, [
    { type: 'branch', name: 'main' },
    { type: 'branch', name: 'feature/x' },
  ]);
  t.same(spec.response('getApiV4ProjectsIdRepositoryCommitsShaRefs', 200, refs.body), []);
  t.same((await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}/refs?type=tag`)).body, [{ type: 'tag', name: 'v1.0.0' }]);
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}/refs?type=all`)).body.length, 3);
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${'c'.repeat(40)}/refs`)).status, 404);
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}/refs?type=heads`)).status, 400);
});

t.test('faults: 429 with Retry-After and RateLimit-Reset, 5xx, lost answers after the work', async (t) => {
  const sim = await setup(t);
  sim.inject({ path: '/deployments', ...rateLimitFault({ retryAfterSeconds: 30, resetEpochSeconds: 1_750_000_030 }) });
  const limited = await create(sim);
  t.same(
    [limited.status, limited.body, limited.headers.get('retry-after'), limited.headers.get('ratelimit-reset')],
    [429, 'Retry later\n', '30', '1750000030'],
  );
  sim.inject({ method: 'POST', status: 502 });
  t.same([(await create(sim)).status, sim.writes().length], [502, 0]);
  sim.inject({ method: 'POST', afterWork: 500 });
  t.equal((await create(sim)).status, 500);
  t.equal(sim.writes().length, 1, 'the create happened although the answer was an error');
});

t.test('a sub-path install serves the API below the prefix only', async (t) => {
  const sim = await setup(t, { pathPrefix: '/gitlab/' });
  t.match(sim.apiUrl, /\/gitlab\/api\/v4$/);
  t.equal((await call(sim, 'GET', 'user')).status, 200);
  const root = await fetch(sim.apiUrl.replace('/gitlab', ''), { headers: { 'private-token': TOKEN } });
  t.equal(root.status, 404);
});

t.test('the response checks bite, and the tier guess follows GitLab', (t) => {
  t.not(spec.response('postApiV4ProjectsIdDeployments', 201, { id: 'x' }).length, 0);
  t.not(spec.response('getApiV4ProjectsIdDeployments', 200, [{ id: 1, iid: 1, ref: 'main', sha: SHA, status: 'inactive' }]).length, 0);
  t.same(['production', 'prod/eu-1', 'staging', 'review/pr-4', 'qa', 'eu-1'].map(guessTier), [
    'production',
    'production',
    'staging',
    'development',
    'testing',
    'other',
  ]);
  t.end();
});

t.test('merge request notes: pages with x-next-page/x-total-pages, newest first, author-only edit, 404s, validation', async (t) => {
  const sim = await setup(t);
  sim.mergeRequest(PROJECT, 7, { sha: SHA });
  const notes = `projects/${ID}/merge_requests/7/notes`;
  t.equal((await call(sim, 'GET', `projects/${ID}/merge_requests/8/notes`)).status, 404, 'an unknown merge request');
  t.same((await call(sim, 'GET', `projects/${ID}/merge_requests/8`)).body, { message: '404 Merge Request Not Found' });
  t.equal((await call(sim, 'GET', `projects/${encodeURIComponent('platform/hidden')}/merge_requests/7/notes`)).status, 404);
  for (let i = 0; i < 3; i++) t.equal((await call(sim, 'POST', notes, { body: { body: `n${i}` } })).status, 201);
  const first = await call(sim, 'GET', `${notes}?per_page=2`);
  t.equal(first.headers.get('x-next-page'), '2');
  t.equal(first.headers.get('x-total-pages'), '2');
  t.same(
    first.body.map((n) => (n as unknown as { body: string }).body),
    ['n2', 'n1'],
    'newest first by default',
  );
  const last = await call(sim, 'GET', `${notes}?per_page=2&page=2`);
  t.equal(last.headers.get('x-next-page'), '');
  const id = (last.body[0] as unknown as { id: number }).id;
  t.equal((await call(sim, 'PUT', `${notes}/${id}`, { token: OTHER, body: { body: 'x' } })).status, 403, 'only the author edits');
  t.equal((await call(sim, 'PUT', `${notes}/${id}`, { body: { body: 'edited' } })).status, 200);
  t.equal((await call(sim, 'PUT', `${notes}/999999`, { body: { body: 'x' } })).status, 404);
  t.equal((await call(sim, 'POST', notes, { body: { body: '' } })).status, 400, 'an empty note');
  t.equal((await call(sim, 'POST', notes, { body: {} })).status, 400, 'body is missing');
  t.equal(sim.noteWrites().length, 4);
  t.equal((await call(sim, 'GET', `${notes}?sort=sideways`)).status, 400, 'a value out of the enum');
  t.ok(sim.violations.length >= 3, 'the bad requests are recorded');
});

t.test('merge request states: a locked discussion refuses non-members; the merge requests of a commit', async (t) => {
  const sim = await setup(t);
  sim.mergeRequest(PROJECT, 3, { discussionLocked: true, sha: SHA });
  sim.mergeRequest(PROJECT, 4, { state: 'merged', sha: SHA });
  const notes = `projects/${ID}/merge_requests/3/notes`;
  t.equal((await call(sim, 'POST', notes, { body: { body: 'x' } })).status, 403);
  sim.member = true;
  t.equal((await call(sim, 'POST', notes, { body: { body: 'x' } })).status, 201, 'a member still comments');
  const mr = await call(sim, 'GET', `projects/${ID}/merge_requests/3`);
  t.match(mr.body, { iid: 3, state: 'opened', discussion_locked: true });
  const open = await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}/merge_requests?state=opened`);
  t.same(
    open.body.map((m) => m.iid),
    [3],
  );
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}/merge_requests`)).body.length, 2);
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${'f'.repeat(40)}/merge_requests`)).status, 404, 'an unknown commit');
  sim.inject({ method: 'GET', path: /\/notes$/, ...rateLimitFault({ retryAfterSeconds: 1 }) });
  const throttled = await call(sim, 'GET', notes);
  t.equal(throttled.status, 429);
  t.equal(throttled.headers.get('retry-after'), '1');
  t.same(sim.violations, []);
});

t.test('commits/:sha: a registered commit answers its dates, any other full SHA the default date; reads are not writes', async (t) => {
  const sim = await setup(t, { defaultCommitDate: '2026-11-01T08:00:00Z' });
  sim.commit('platform/team', 'app', SHA, { committedAt: '2026-11-30T10:00:00+02:00', authoredAt: '2026-11-29T09:30:00.5Z' });
  t.match(await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}?stats=false`), {
    status: 200,
    body: { id: SHA, committed_date: '2026-11-30T10:00:00.000+02:00', authored_date: '2026-11-29T09:30:00.500Z' },
  });
  const byId = await call(sim, 'GET', `projects/${sim.project(PROJECT)!.id}/repository/commits/${SHA2}?stats=false`);
  t.match(byId, { status: 200, body: { committed_date: '2026-11-01T08:00:00.000Z', authored_date: '2026-11-01T08:00:00.000Z' } });
  t.notOk('stats' in byId.body, 'stats=false leaves the stats out');
  t.equal(sim.commitReads().length, 2);
  t.same(sim.writes(), []);
  t.same(sim.violations, [], 'both answers match APIEntitiesCommitDetail');
});

t.test('commits/:sha: the default date is an hour before the start, in whole seconds', async (t) => {
  const sim = await setup(t, { clock: () => Date.parse('2026-12-01T12:00:00.750Z') });
  t.match(await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}`), {
    status: 200,
    body: { committed_date: '2026-12-01T11:00:00.000Z' },
  });
});

t.test('commits/:sha: 404 Commit Not Found for a missing commit; the project must exist and be visible; reset() forgets', async (t) => {
  const sim = await setup(t);
  sim.missingCommit('platform/team', 'app', SHA);
  t.same(await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}?stats=false`).then((a) => [a.status, a.body]), [
    404,
    { message: '404 Commit Not Found' },
  ]);
  t.match(await call(sim, 'GET', `projects/${ID}/repository/commits/abc`), { status: 404, body: { message: '404 Commit Not Found' } });
  t.match(await call(sim, 'GET', `projects/nope%2Fnone/repository/commits/${SHA}`), {
    status: 404,
    body: { message: '404 Project Not Found' },
  });
  t.match(await call(sim, 'GET', `projects/platform%2Fhidden/repository/commits/${SHA}`), {
    status: 404,
    body: { message: '404 Project Not Found' },
  });
  t.match(await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}`, { token: null }), { status: 401 });
  t.same(sim.violations, []);
  sim.reset();
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}`)).status, 200);
});

t.test('commits/:sha: an undeclared query parameter is ignored but recorded; a bad stats is 400', async (t) => {
  const sim = await setup(t);
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}?stat=false`)).status, 200);
  t.match(sim.violations, [
    { operation: 'getApiV4ProjectsIdRepositoryCommitsSha', kind: 'query', errors: [/stat is not a parameter GitLab declares/] },
  ]);
  t.equal((await call(sim, 'GET', `projects/${ID}/repository/commits/${SHA}?stats=maybe`)).status, 400);
});

t.test('a project that does not exist is 404, also under a sub-path: no path exists by accident', async (t) => {
  const sim = await startGitLabSimulator({ tokens: { [TOKEN]: 'deploy-bridge' }, pathPrefix: '/gitlab' });
  t.teardown(() => sim.close());
  const create = { environment: 'staging', sha: SHA, ref: 'main', tag: false, status: 'running' };
  const at = (path: string) => `projects/${encodeURIComponent(path)}/deployments`;
  t.equal((await call(sim, 'POST', at('gitlab/platform/team/shop'), { body: create })).status, 404, 'the sub-path taken for a group');
  t.equal((await call(sim, 'POST', at('127.0.0.1/acme/shop'), { body: create })).status, 404, 'a host taken for a group');
  t.equal((await call(sim, 'POST', at('platform/team/shop'), { body: create })).status, 201, 'below a group that exists');
  t.same(sim.writes().length, 1);
  const declared = await setup(t);
  t.equal((await call(declared, 'POST', at('acme/web'), { body: create })).status, 404, 'with projects declared, only those exist');
});
