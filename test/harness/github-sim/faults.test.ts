import t, { type Test } from 'tap';
import { Octokit } from 'octokit';
import { faults, startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions } from '../github-sim.js';

const TOKEN = 'ghs_fault_token';
const repo = { owner: 'acme', repo: 'web' };
const createBody = { ...repo, ref: 'b'.repeat(40), environment: 'staging', auto_merge: false, required_contexts: [], payload: {} };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function setup(t: Test, options: GitHubSimulatorOptions = {}): Promise<{ sim: GitHubSimulator; gh: Octokit }> {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], ...options });
  t.teardown(() => sim.close());
  return { sim, gh: new Octokit({ auth: TOKEN, baseUrl: sim.url, retry: { enabled: false }, throttle: { enabled: false }, log: quiet }) };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (err: unknown) => err,
  );
}

/** Resolves once the simulator has recorded `n` requests. */
async function arrived(sim: GitHubSimulator, n: number): Promise<void> {
  while (sim.requests.length < n) await new Promise((resolve) => setTimeout(resolve, 2));
}

const createDeployment = (gh: Octokit, signal?: AbortSignal) =>
  gh.request('POST /repos/{owner}/{repo}/deployments', { ...createBody, request: { signal: signal ?? AbortSignal.timeout(5000) } });

t.test('status fault: answers the error without doing the work, `times` times', async (t) => {
  const { sim, gh } = await setup(t);
  sim.inject({ method: 'POST', path: '/deployments', status: 502, times: 2 });
  t.match(await failure(createDeployment(gh)), { status: 502 });
  t.match(await failure(createDeployment(gh)), { status: 502 });
  t.equal(sim.deployments('acme', 'web').length, 0, 'nothing created');
  t.equal((await createDeployment(gh)).status, 201, 'the third attempt goes through');
  t.same(
    sim.requests.map((r) => r.status),
    [502, 502, 201],
  );
  t.equal(sim.writes().length, 1);
});

t.test('faults match on method and path (substring or RegExp, with or without the prefix)', async (t) => {
  const { sim, gh } = await setup(t, { pathPrefix: '/api/v3' });
  sim.inject({ method: 'GET', path: /\/statuses$/, kind: { status: 404, body: { message: 'Not Found' } } });
  sim.inject({ path: '/api/v3/repos/acme/web/deployments', status: 500 });
  const d = await failure(createDeployment(gh));
  t.match(d, { status: 500 }, 'the prefixed-path fault hits the create');
  const created = await createDeployment(gh);
  const id = (created.data as { id: number }).id;
  await gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: id, state: 'queued' });
  t.match(
    await failure(gh.rest.repos.listDeploymentStatuses({ ...repo, deployment_id: id })),
    { status: 404 },
    'the GET fault waited for a GET',
  );
  t.equal((await gh.rest.repos.listDeploymentStatuses({ ...repo, deployment_id: id })).data.length, 1, 'used up');
});

t.test('afterWork fault: the write happens, the answer is lost', async (t) => {
  const { sim, gh } = await setup(t);
  sim.inject({ method: 'POST', path: /\/deployments$/, afterWork: 502 });
  t.match(
    await failure(gh.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: 7 } as never)),
    { status: 422 },
    'no work, fault kept',
  );
  t.match(await failure(createDeployment(gh)), { status: 502 });
  const stored = sim.deployments('acme', 'web');
  t.equal(stored.length, 1, 'the deployment exists');
  t.equal(sim.writes().length, 1, 'and counts as a write');
  t.same(
    (await gh.rest.repos.listDeployments(repo)).data.map((d) => d.id),
    [stored[0]?.id],
    'a find after the failure sees it',
  );
  t.equal(sim.violations.length, 1, 'only the deliberate 422');
});

t.test('hang fault: no answer until the client gives up; close() releases it', async (t) => {
  const { sim, gh } = await setup(t);
  sim.inject({ path: '/deployments', hang: true });
  const giveUp = new AbortController();
  const first = failure(createDeployment(gh, giveUp.signal));
  await arrived(sim, 1);
  giveUp.abort();
  t.match(await first, { message: /abort/i });
  t.match(sim.requests[0], { method: 'POST', status: undefined, fault: { hang: true } }, 'never answered');
  t.equal(sim.deployments('acme', 'web').length, 0);
  sim.inject({ hang: true });
  const pending = failure(gh.rest.repos.listDeployments({ ...repo, request: { signal: AbortSignal.timeout(5000) } }));
  await arrived(sim, 2);
  await sim.close();
  t.ok(await pending, 'closing the simulator ends the hanging request');
});

t.test('reset fault: the connection is destroyed', async (t) => {
  const { sim, gh } = await setup(t);
  sim.inject({ method: 'POST', reset: true });
  const err = await failure(createDeployment(gh));
  t.ok(err instanceof Error);
  t.notMatch(err, { status: 201 });
  t.equal(sim.deployments('acme', 'web').length, 0);
  t.equal((await createDeployment(gh)).status, 201);
});

t.test('rate-limit builders speak the wire format octokit throttling recognises', async (t) => {
  const { sim } = await setup(t);
  const seen: string[] = [];
  const gh = new Octokit({
    auth: TOKEN,
    baseUrl: sim.url,
    retry: { enabled: false },
    log: quiet,
    throttle: {
      retryAfterBaseValue: 1, // retry after `retryAfter` milliseconds instead of seconds
      onSecondaryRateLimit: (after: number) => {
        seen.push(`secondary ${after}`);
        return true;
      },
      onRateLimit: (after: number) => {
        seen.push(`primary ${after > 0}`);
        return true;
      },
    },
  });
  const reset = Math.floor(Date.now() / 1000) + 2;
  sim.inject({ method: 'GET', kind: faults.primaryRateLimit(reset) });
  sim.inject({ method: 'GET', ...sim.faults.secondaryRateLimit(3) });
  sim.inject({ method: 'GET', ...sim.faults.secondaryRateLimit(4, 429) });
  t.equal((await gh.rest.repos.listDeployments(repo)).status, 200, 'retried through all three');
  t.same(seen, ['primary true', 'secondary 3', 'secondary 4']);
  t.match(
    sim.requests.map((r) => r.status),
    [403, 403, 429, 200],
  );
});

t.test('writesPerMinute: a secondary rate limit on writes only', async (t) => {
  const { sim, gh } = await setup(t, { writesPerMinute: 2 });
  await createDeployment(gh);
  await createDeployment(gh);
  const err = await failure(createDeployment(gh));
  t.match(err, { status: 403, message: /secondary rate limit/, response: { headers: { 'retry-after': /^\d+$/ } } });
  const after = Number((err as { response: { headers: Record<string, string> } }).response.headers['retry-after']);
  t.ok(after >= 1 && after <= 60, 'retry-after within the minute');
  t.equal((await gh.rest.repos.listDeployments(repo)).data.length, 2, 'reads are not limited');
  t.equal(sim.writes().length, 2);
});

t.test('latencyMs delays every answer', async (t) => {
  const { sim, gh } = await setup(t, { latencyMs: 400 });
  const giveUp = new AbortController();
  const impatient = failure(gh.rest.repos.listDeployments({ ...repo, request: { signal: giveUp.signal } }));
  await arrived(sim, 1);
  giveUp.abort();
  t.match(await impatient, { message: /abort/i }, 'no answer yet when the request has arrived');
  t.equal((await gh.rest.repos.listDeployments(repo)).status, 200, 'a patient client gets the answer');
  t.equal(sim.requests.at(-1)?.status, 200);
});

t.test('reset() drops armed faults', async (t) => {
  const { sim, gh } = await setup(t);
  sim.inject({ status: 500, times: Infinity });
  t.match(await failure(gh.rest.repos.listDeployments(repo)), { status: 500 });
  sim.reset();
  t.equal((await gh.rest.repos.listDeployments(repo)).status, 200);
});

t.test("secondaryLimits: GitHub's two windows per account, a 403 with GitHub's message and retry-after", async (t) => {
  // Scaled: a minute lasts 3 s and an hour 180 s; windows of 2 per minute and 3 per hour.
  const { sim, gh } = await setup(t, {
    secondaryLimits: {
      windows: [
        { count: 2, ms: 60_000 },
        { count: 3, ms: 3_600_000 },
      ],
      scale: 0.05,
    },
  });
  await createDeployment(gh);
  await createDeployment(gh);
  const minute = await failure(createDeployment(gh));
  t.match(minute, {
    status: 403,
    response: {
      data: { message: /^You have exceeded a secondary rate limit/ },
      headers: { 'retry-after': /^[1-3]$/, 'x-ratelimit-limit': /^\d+$/ },
    },
  });
  await new Promise((r) => setTimeout(r, 3_100));
  await createDeployment(gh);
  const hour = await failure(createDeployment(gh));
  const after = Number((hour as { response: { headers: Record<string, string> } }).response.headers['retry-after']);
  t.ok(after > 3 && after <= 180, `the hour's window says when it has room (${after} s)`);
  t.equal(sim.secondaryRefusals(), 2);
  t.equal((await gh.rest.repos.listDeployments(repo)).data.length, 3, 'reads are not limited; refused writes did nothing');
  sim.reset();
  await createDeployment(gh);
  t.equal(sim.secondaryRefusals(), 0, 'reset forgets the windows');
});

t.test('secondaryLimits: identities make several tokens one identity with one set of windows', async (t) => {
  const { sim, gh } = await setup(t, {
    secondaryLimits: { windows: [{ count: 3, ms: 60_000 }], identities: { [TOKEN]: 'app', 'second-bridge': 'app' } },
    tokens: [TOKEN, 'second-bridge', 'own-token'],
  });
  const as = (auth: string) => new Octokit({ auth, baseUrl: sim.url, retry: { enabled: false }, throttle: { enabled: false }, log: quiet });
  const second = as('second-bridge');
  await createDeployment(gh);
  await createDeployment(second);
  await createDeployment(gh);
  t.match(await failure(createDeployment(second)), { status: 403 }, "the identity's window is full, whichever token writes");
  t.match(await failure(createDeployment(gh)), { status: 403 });
  t.equal((await createDeployment(as('own-token'))).status, 201, 'a token of no identity counts on its own');
  t.equal(sim.secondaryRefusals(), 2);
});

t.test('secondaryLimits: true is 80 per minute per account; another token has its own', async (t) => {
  const { sim, gh } = await setup(t, { secondaryLimits: true, tokens: [TOKEN, 'other-token'] });
  for (let i = 0; i < 80; i++) await createDeployment(gh);
  t.match(await failure(createDeployment(gh)), { status: 403 });
  const other = new Octokit({ auth: 'other-token', baseUrl: sim.url, retry: { enabled: false }, throttle: { enabled: false }, log: quiet });
  t.equal((await createDeployment(other)).status, 201, 'another account is not limited by the first');
  t.equal(sim.secondaryRefusals(), 1);
  sim.enforceSecondaryLimits(false);
  t.equal((await createDeployment(gh)).status, 201, 'switched off');
  sim.enforceSecondaryLimits(true);
  t.equal((await createDeployment(gh)).status, 201, 'switched on again: the windows start afresh');
});
