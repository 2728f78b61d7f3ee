import t, { type Test } from 'tap';
import { Octokit } from 'octokit';
import { startGitHubSimulator, type GitHubSimulator, type RecordedRequest } from '../github-sim.js';

const TOKEN = 'ghs_hook_token';
const repo = { owner: 'acme', repo: 'web' };
const createBody = { ...repo, ref: 'c'.repeat(40), environment: 'staging', auto_merge: false, required_contexts: [], payload: {} };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function setup(t: Test): Promise<{ sim: GitHubSimulator; gh: Octokit }> {
  const sim = await startGitHubSimulator({ tokens: [TOKEN] });
  t.teardown(() => sim.close());
  return { sim, gh: new Octokit({ auth: TOKEN, baseUrl: sim.url, retry: { enabled: false }, throttle: { enabled: false }, log: quiet }) };
}

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );
const create = (gh: Octokit) =>
  gh.request('POST /repos/{owner}/{repo}/deployments', { ...createBody, request: { signal: AbortSignal.timeout(5000) } });

t.test('a before hook that drops: the request is never applied nor answered', async (t) => {
  const { sim, gh } = await setup(t);
  const seen: RecordedRequest[] = [];
  sim.hook({
    method: 'POST',
    path: /\/deployments$/,
    when: 'before',
    run: (r) => {
      seen.push({ ...r });
      return 'drop';
    },
  });
  t.ok(await failure(create(gh)), 'the client sees its connection end');
  t.equal(sim.deployments('acme', 'web').length, 0, 'nothing applied');
  t.match(seen, [{ method: 'POST', path: '/repos/acme/web/deployments', didWork: false, status: undefined }]);
  t.match(sim.requests[0], { method: 'POST', status: undefined, didWork: false });
  t.equal((await create(gh)).status, 201, 'used up: the next create goes through');
  t.equal(sim.writes().length, 1);
});

t.test('an after hook that drops: GitHub applied the write, the client never saw the answer', async (t) => {
  const { sim, gh } = await setup(t);
  let status: number | undefined;
  sim.hook({
    method: 'POST',
    path: /\/deployments$/,
    when: 'after',
    run: (r) => {
      status = r.status;
      return 'drop';
    },
  });
  t.ok(await failure(create(gh)));
  t.equal(status, 201, 'the hook ran once the create was applied');
  t.equal(sim.deployments('acme', 'web').length, 1, 'the deployment exists');
  t.match(sim.requests[0], { didWork: true, status: undefined });
  t.equal(sim.writes().length, 1);
});

t.test('skip and times pick the exact request; the simulator waits for the hook; no verdict answers normally', async (t) => {
  const { sim, gh } = await setup(t);
  const d = (await create(gh)).data as { id: number };
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  sim.hook({
    method: 'POST',
    path: /\/statuses$/,
    when: 'before',
    skip: 1,
    times: 2,
    run: async (r): Promise<undefined> => {
      order.push(`hook ${(r.body as { state: string }).state}`);
      if (order.length === 2) await held;
    },
  });
  const post = (state: 'queued' | 'in_progress' | 'success' | 'inactive') =>
    gh.rest.repos.createDeploymentStatus({ ...repo, deployment_id: d.id, state }).then(() => order.push(`answered ${state}`));
  await post('queued');
  const second = post('in_progress');
  while (order.length < 2) await new Promise((r) => setTimeout(r, 2));
  t.same(order, ['answered queued', 'hook in_progress'], 'the first status passed (skip 1); the second is held');
  t.same(
    sim.deployments('acme', 'web')[0]!.statuses.map((s) => s.state),
    ['queued'],
    'not applied while held',
  );
  release();
  await second;
  await post('success');
  await post('inactive');
  t.same(
    order,
    ['answered queued', 'hook in_progress', 'answered in_progress', 'hook success', 'answered success', 'answered inactive'],
    'times 2, then used up',
  );
  t.same(
    sim.deployments('acme', 'web')[0]!.statuses.map((s) => s.state),
    ['queued', 'in_progress', 'success', 'inactive'],
  );
  sim.reset();
  sim.hook({ when: 'before', run: () => 'drop' });
  sim.reset();
  t.equal((await create(gh)).status, 201, 'reset forgets armed hooks');
});
