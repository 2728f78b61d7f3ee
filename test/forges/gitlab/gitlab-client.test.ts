import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GitLabClient, nextPageOf } from '../../../src/forges/gitlab/gitlab-client.js';
import { classifyGitLabFailure, GitLabError, type GitLabFailure } from '../../../src/forges/gitlab/gitlab-error.js';
import { tokenFileReader, type GitLabHttpOptions } from '../../../src/forges/gitlab/gitlab-http.js';
import { CREATED_AS, findOwnDeployment } from '../../../src/forges/gitlab/gitlab-recovery.js';
import { parseGitLabUrl } from '../../../src/forges/gitlab/gitlab-url.js';
import { rateLimitFault, startGitLabSimulator, type GitLabSimulator, type GitLabSimulatorOptions } from '../../harness/gitlab-sim.js';

const TOKEN = 'glpat-bridge';
const SHA = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
const PROJECT = 'platform/team/app';
const NOW = 1_750_000_000_000;

async function setup(t: Test, sim: GitLabSimulatorOptions = {}, client: Partial<GitLabHttpOptions> = {}) {
  const s = await startGitLabSimulator({
    tokens: { [TOKEN]: 'deploy-bridge', 'glpat-rotated': 'deploy-bridge', 'glpat-other': 'someone' },
    projects: [
      { path: PROJECT, defaultBranch: 'main', branches: { main: [SHA], 'feature/x': [SHA, SHA2] } },
      { path: 'platform/locked', reporters: ['deploy-bridge'] },
    ],
    ...sim,
  });
  t.teardown(() => s.close());
  const loc = parseGitLabUrl(s.url);
  if ('problem' in loc) throw new Error(loc.problem);
  const outcomes: (number | string)[] = [];
  const gitlab = new GitLabClient({
    apiBase: loc.apiBase,
    token: TOKEN,
    userAgent: 'gdb-test',
    now: () => NOW,
    observe: (_op, outcome) => outcomes.push(outcome),
    ...client,
  });
  return { sim: s, gitlab, outcomes };
}

/** The failure a call ends in, sorted. */
async function failure(call: Promise<unknown>): Promise<{ kind: GitLabFailure; err: GitLabError }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof GitLabError) return { kind: classifyGitLabFailure(err), err };
    throw err;
  }
  throw new Error('the call succeeded');
}

const noViolations = (t: Test, sim: GitLabSimulator) => t.same(sim.violations, [], 'every request matched GitLab’s description');

t.test('the lifecycle calls: user, project, create running, success, environment read, PUT, stop, refs', async (t) => {
  const { sim, gitlab, outcomes } = await setup(t);
  t.match(await gitlab.currentUser(), { username: 'deploy-bridge' });
  t.equal(sim.requests[0]?.credential, 'private-token');
  t.equal((await gitlab.project(PROJECT)).default_branch, 'main');
  t.equal(await gitlab.environment(PROJECT, 'review/feature-x'), null, 'no environment before the first deployment');
  const d = await gitlab.createDeployment(PROJECT, {
    environment: 'review/feature-x',
    sha: SHA2,
    ref: 'feature/x',
    tag: false,
    status: 'running',
  });
  t.match(d, { status: 'running', sha: SHA2, user: { username: 'deploy-bridge' }, environment: { name: 'review/feature-x' } });
  t.equal(sim.requests.at(-1)?.path, '/projects/platform%2Fteam%2Fapp/deployments', 'the project id is the URL-encoded path');
  t.equal((await gitlab.updateDeployment(PROJECT, d.id, 'success')).status, 'success');
  const env = await gitlab.environment(PROJECT, 'review/feature-x');
  t.match(env, { name: 'review/feature-x', tier: 'development', external_url: null, last_deployment: { id: d.id } });
  const put = await gitlab.updateEnvironment(PROJECT, env!.id, { external_url: 'https://x.preview.example', tier: 'staging' });
  t.match(put, { external_url: 'https://x.preview.example', tier: 'staging' });
  t.equal((await gitlab.stopEnvironment(PROJECT, env!.id)).state, 'stopped');
  t.same(await gitlab.branchesContaining(PROJECT, SHA), ['main', 'feature/x']);
  t.equal(sim.writes().length, 4, 'create, success, PUT, stop');
  t.ok(outcomes.every((o) => o === 200 || o === 201));
  noViolations(t, sim);
});

t.test('listDeployments: by environment and status, newest first, page after page (x-next-page)', async (t) => {
  const { sim, gitlab } = await setup(t);
  for (let i = 0; i < 130; i++)
    await gitlab.createDeployment(PROJECT, {
      environment: i % 2 ? 'prod' : 'staging',
      sha: SHA,
      ref: 'main',
      tag: false,
      status: i < 120 ? 'success' : 'running',
    });
  const before = sim.requests.length;
  const listed = await gitlab.listDeployments(PROJECT, { environment: 'staging', status: 'success' });
  t.equal(listed.length, 60);
  t.ok(listed.every((d) => d.environment?.name === 'staging' && d.status === 'success'));
  t.same(
    listed.map((d) => d.id),
    [...listed.map((d) => d.id)].sort((a, b) => b - a),
    'newest first',
  );
  t.equal(sim.requests.length - before, 1, 'one page of 100');
  t.match(sim.requests.at(-1)?.query, { environment: 'staging', status: 'success', order_by: 'id', sort: 'desc', per_page: '100' });
  const many = await setup(t, { projects: undefined });
  for (let i = 0; i < 230; i++)
    await many.gitlab.createDeployment('acme/p', { environment: 'e', sha: SHA, ref: 'main', tag: false, status: 'success' });
  const start = many.sim.requests.length;
  t.equal((await many.gitlab.listDeployments('acme/p', { environment: 'e', status: 'success' })).length, 230);
  t.same(
    many.sim.requests.slice(start).map((r) => r.query.page),
    ['1', '2', '3'],
  );
  noViolations(t, sim);
  noViolations(t, many.sim);
});

t.test('nextPageOf: x-next-page first, else Link rel="next", else none', (t) => {
  t.equal(nextPageOf(new Headers({ 'x-next-page': '3' }), 2), 3);
  t.equal(nextPageOf(new Headers({ 'x-next-page': '' }), 2), undefined);
  t.equal(
    nextPageOf(
      new Headers({
        link: '<https://g.example/api/v4/x?page=4&per_page=100>; rel="next", <https://g.example/api/v4/x?page=9>; rel="last"',
      }),
      3,
    ),
    4,
  );
  t.equal(nextPageOf(new Headers({ 'x-next-page': '1' }), 2), undefined, 'never backwards');
  t.equal(nextPageOf(new Headers(), 1), undefined);
  t.end();
});

t.test('GITLAB_TOKEN_FILE is read again before each request, trailing newline trimmed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gdb-gitlab-'));
  const file = join(dir, 'token');
  await writeFile(file, `${TOKEN}\n`);
  const { sim, gitlab } = await setup(t, {}, { token: tokenFileReader(file) });
  await gitlab.currentUser();
  await writeFile(file, 'glpat-rotated\n');
  await gitlab.currentUser();
  await writeFile(file, 'glpat-revoked\n');
  t.equal((await failure(gitlab.currentUser())).kind, 'credentials');
  t.same(
    sim.requests.map((r) => r.status),
    [200, 200, 401],
  );
  const missing = new GitLabClient({ apiBase: sim.apiUrl, token: tokenFileReader(join(dir, 'nope')), userAgent: 'x' });
  const { err } = await failure(missing.currentUser());
  t.match(err.message, /cannot read the token/);
  t.equal(sim.requests.length, 3, 'nothing sent without a token');
});

t.test(
  'error classes: 401 credentials, 403/404 refuse the project, unknown commit refuses the commit, bad transition refuses the call',
  async (t) => {
    const { sim, gitlab } = await setup(t);
    const bad = new GitLabClient({ apiBase: sim.apiUrl, token: 'glpat-nope', userAgent: 'x' });
    const unauthorized = await failure(bad.currentUser());
    t.same([unauthorized.kind, unauthorized.err.status, unauthorized.err.gitlabMessage], ['credentials', 401, '401 Unauthorized']);
    t.notMatch(unauthorized.err.message, /glpat-nope/, 'the token is never in an error');
    const missing = await failure(gitlab.project('platform/nope'));
    t.same([missing.kind, missing.err.gitlabMessage], ['refuse_project', '404 Project Not Found']);
    const locked = await failure(
      gitlab.createDeployment('platform/locked', { environment: 'e', sha: SHA, ref: 'main', tag: false, status: 'running' }),
    );
    t.same([locked.kind, locked.err.status], ['refuse_project', 403]);
    const commit = await failure(
      gitlab.createDeployment(PROJECT, { environment: 'e', sha: 'c'.repeat(40), ref: 'main', tag: false, status: 'running' }),
    );
    t.same([commit.kind, commit.err.gitlabMessage], ['refuse_commit', 'sha The commit does not exist']);
    const ref = await failure(gitlab.createDeployment(PROJECT, { environment: 'e', sha: SHA, ref: 'gone', tag: false, status: 'running' }));
    t.equal(ref.kind, 'refuse_commit');
    const noCommit = await failure(gitlab.branchesContaining(PROJECT, 'c'.repeat(40)));
    t.same([noCommit.kind, noCommit.err.status], ['refuse_commit', 404], "a commit's 404 refuses the commit, not the project");
    const d = await gitlab.createDeployment(PROJECT, { environment: 'e', sha: SHA, ref: 'main', tag: false, status: 'success' });
    const again = await failure(gitlab.updateDeployment(PROJECT, d.id, 'success'));
    t.same([again.kind, again.err.gitlabMessage], ['refuse', 'status cannot transition via "succeed"']);
    t.match(again.err.message, /set deployment \d+ of platform\/team\/app to success: 400/);
  },
);

t.test('rate limits pause until Retry-After or RateLimit-Reset; bare 429, 5xx, resets and timeouts are retried', async (t) => {
  const { sim, gitlab } = await setup(t);
  sim.inject({ ...rateLimitFault({ retryAfterSeconds: 30 }) });
  const after = await failure(gitlab.currentUser());
  t.same([after.kind, after.err.retryAt], ['pause', NOW + 30_000]);
  sim.inject({ ...rateLimitFault({ resetEpochSeconds: NOW / 1000 + 90 }) });
  const reset = await failure(gitlab.currentUser());
  t.same([reset.kind, reset.err.retryAt], ['pause', NOW + 90_000]);
  sim.inject({ ...rateLimitFault({ resetEpochSeconds: NOW / 1000 + 86_400 }) });
  t.equal((await failure(gitlab.currentUser())).kind, 'retry', 'a reset a day away is not obeyed: retried with backoff');
  sim.inject({ ...rateLimitFault({}) });
  t.equal((await failure(gitlab.currentUser())).kind, 'retry');
  sim.inject({ status: 502, body: '<html>Bad Gateway</html>' });
  const gateway = await failure(gitlab.currentUser());
  t.same([gateway.kind, gateway.err.status, gateway.err.gitlabMessage], ['retry', 502, undefined]);
  // A read whose kept-alive connection is reset is sent once more on a new one (the transport); reset twice, it fails.
  sim.inject({ reset: true });
  t.match(await gitlab.currentUser(), { username: 'deploy-bridge' }, 'one reset: answered over a new connection');
  sim.inject({ reset: true, times: 2 });
  const dropped = await failure(gitlab.currentUser());
  t.same([dropped.kind, dropped.err.status], ['retry', undefined]);
  t.match(dropped.err.message, /network error/);
  const slow = await setup(t, {}, { timeoutMs: 200 });
  slow.sim.inject({ hang: true });
  const hung = await failure(slow.gitlab.currentUser());
  t.equal(hung.kind, 'retry');
  t.match(hung.err.message, /timed out after 200 ms/);
  t.same(slow.outcomes, ['timeout']);
});

t.test('answers are read with a size cap', async (t) => {
  const { sim, gitlab } = await setup(t, {}, { maxAnswerBytes: 512 });
  await gitlab.createDeployment(PROJECT, { environment: 'e', sha: SHA, ref: 'main', tag: false, status: 'running' }).catch(() => undefined);
  const big = await failure(gitlab.listDeployments(PROJECT, { environment: 'e', status: 'running' }));
  t.equal(big.kind, 'retry');
  t.match(big.err.message, /more than 512 bytes/);
  t.equal(sim.writes().length, 1, 'the create went through although its answer was too large to read');
});

t.test('a sub-path install: GITLAB_URL with a prefix reaches the API below it', async (t) => {
  const { sim, gitlab } = await setup(t, { pathPrefix: '/gitlab' });
  t.match(sim.url, /\/gitlab$/);
  t.match(await gitlab.currentUser(), { username: 'deploy-bridge' });
  t.equal(sim.requests.at(-1)?.status, 200);
});

t.test('crash recovery: a create whose answer was lost is found by listing, never another user’s of the same commit', async (t) => {
  const { sim, gitlab } = await setup(t);
  const other = new GitLabClient({ apiBase: sim.apiUrl, token: 'glpat-other', userAgent: 'x' });
  const body = { environment: 'staging/frontend', sha: SHA, ref: 'main', tag: false, status: 'running' } as const;
  await other.createDeployment(PROJECT, body);
  sim.inject({ method: 'POST', afterWork: 502 });
  t.equal((await failure(gitlab.createDeployment(PROJECT, body))).kind, 'retry', 'the answer was lost');
  await gitlab.createDeployment(PROJECT, { ...body, environment: 'staging/backend' });
  const me = await gitlab.currentUser();
  const listed = (
    await Promise.all(CREATED_AS.map((status) => gitlab.listDeployments(PROJECT, { environment: 'staging/frontend', status })))
  ).flat();
  t.equal(listed.length, 2, 'both users’ deployments of the commit are listed');
  const found = findOwnDeployment(listed, { environment: 'staging/frontend', sha: SHA, userId: me.id, claimed: new Set() });
  t.match(found, { found: { user: { username: 'deploy-bridge' }, environment: { name: 'staging/frontend' } } });
  t.equal(sim.project(PROJECT)?.deployments.length, 3, 'no duplicate was created');
  noViolations(t, sim);
});
