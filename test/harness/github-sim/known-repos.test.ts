import t, { type Test } from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import { DEFAULT_OWNERS, startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions } from '../github-sim.js';
import { repoExists, type KnownRepos } from './known-repos.js';

const TOKEN = 'ghs_test_token';
const SHA = 'a'.repeat(40);
const APP_ID = 12;
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });

async function setup(t: Test, options: GitHubSimulatorOptions = {}): Promise<GitHubSimulator> {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], ...options });
  t.teardown(() => sim.close());
  return sim;
}

async function call(sim: GitHubSimulator, method: string, path: string, body?: unknown, auth = `token ${TOKEN}`) {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    signal: AbortSignal.timeout(5000),
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

/** Every repository-scoped REST route the simulator serves, for one repository. */
const restRoutes = (r: string): Array<[string, string, unknown?]> => [
  ['POST', `/repos/${r}/deployments`, { ref: SHA, environment: 'staging', auto_merge: false, required_contexts: [] }],
  ['GET', `/repos/${r}/deployments`],
  ['GET', `/repos/${r}/deployments/1001`],
  ['DELETE', `/repos/${r}/deployments/1001`],
  ['POST', `/repos/${r}/deployments/1001/statuses`, { state: 'success' }],
  ['GET', `/repos/${r}/deployments/1001/statuses`],
  ['GET', `/repos/${r}/git/commits/${SHA}`],
  ['GET', `/repos/${r}/commits/${SHA}/pulls`],
  ['GET', `/repos/${r}/issues/3`],
  ['GET', `/repos/${r}/issues/3/comments`],
  ['PATCH', `/repos/${r}/issues/comments/1`, { body: 'edited' }],
  ['POST', `/repos/${r}/issues/3/comments`, { body: 'hello' }],
];

const graphql = (sim: GitHubSimulator, owner: string, name: string, auth?: string) =>
  call(
    sim,
    'POST',
    '/graphql',
    { query: `{ repository(owner: "${owner}", name: "${name}") { deployments(first: 1) { totalCount } } }` },
    auth,
  );

t.test('repoExists: a listed repository, else every repository of the owners (case-insensitive)', (t) => {
  const rows: Array<[string, KnownRepos, string, boolean]> = [
    ['default owner', {}, 'acme/anything', true],
    ['default owner, other case', {}, 'ACME/Web', true],
    ['another owner by default', {}, 'globex/web', false],
    ['a sub-path taken for an owner', {}, 'api/acme', false],
    ['owners given', { owners: ['globex'] }, 'globex/web', true],
    ['owners given replace the default', { owners: ['globex'] }, 'acme/web', false],
    ['listed', { repos: ['acme/web'] }, 'Acme/WEB', true],
    ['not listed, though of the default owner', { repos: ['acme/web'] }, 'acme/api', false],
    ['a list wins over owners', { repos: ['acme/web'], owners: ['globex'] }, 'globex/web', false],
    ['an empty list: none', { repos: [] }, 'acme/web', false],
  ];
  t.same(DEFAULT_OWNERS, ['acme']);
  for (const [name, known, full, want] of rows) {
    const [owner = '', repo = ''] = full.split('/');
    t.equal(repoExists(known, owner, repo), want, name);
  }
  t.end();
});

t.test("without a list, another owner's repository is 404 with GitHub's body on every route; acme's answer", async (t) => {
  const sim = await setup(t);
  sim.pullRequest('acme', 'web', 3);
  for (const [method, path, body] of restRoutes('globex/web')) {
    const r = await call(sim, method, path, body);
    t.equal(r.status, 404, `${method} ${path}`);
    t.match(r.body, { message: 'Not Found', documentation_url: /^https:\/\/docs\.github\.com\// }, `${method} ${path}: GitHub's body`);
  }
  t.same(sim.deployments('globex', 'web'), [], 'nothing made up');
  t.equal(sim.writes().length + sim.commentWrites().length, 0);
  t.equal((await call(sim, ...(restRoutes('acme/web')[0] as [string, string, unknown]))).status, 201, 'a repository of acme exists');
  t.equal((await call(sim, 'GET', '/repos/acme/web/issues/3/comments')).status, 200);
  t.equal((await call(sim, 'GET', `/repos/ACME/Web/git/commits/${SHA}`)).status, 200, 'names are case-insensitive');
});

t.test('GraphQL: repository(owner, name) of an unknown repository is null with a NOT_FOUND error, as on GitHub', async (t) => {
  const sim = await setup(t, { owners: ['globex'] });
  const unknown = await graphql(sim, 'acme', 'web');
  t.equal(unknown.status, 200);
  t.same(unknown.body.data, { repository: null });
  t.match(unknown.body.errors, [
    { type: 'NOT_FOUND', path: ['repository'], message: "Could not resolve to a Repository with the name 'acme/web'." },
  ]);
  t.same((await graphql(sim, 'globex', 'web')).body, { data: { repository: { deployments: { totalCount: 0 } } } }, 'an owner given');
});

t.test('owners and repos options: only theirs exist', async (t) => {
  const owners = await setup(t, { owners: ['globex', 'initech'] });
  t.equal((await call(owners, 'GET', '/repos/initech/web/deployments')).status, 200);
  t.equal((await call(owners, 'GET', '/repos/acme/web/deployments')).status, 404, 'the default owner is replaced');
  const listed = await setup(t, { repos: ['acme/web'] });
  t.equal((await call(listed, 'GET', '/repos/acme/web/deployments')).status, 200);
  t.equal((await call(listed, 'GET', '/repos/acme/api/deployments')).status, 404, 'not listed');
});

t.test("an App installation on all of an owner's repositories opens only those that exist", async (t) => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iat: now - 60, exp: now + 540, iss: String(APP_ID) })}`;
  const jwt = `Bearer ${unsigned}.${sign('sha256', Buffer.from(unsigned), keys.privateKey).toString('base64url')}`;
  const sim = await setup(t, {
    repos: ['acme/web'],
    app: { id: APP_ID, publicKey: keys.publicKey, installations: [{ id: 5, account: 'acme' }] },
  });
  t.equal((await call(sim, 'GET', '/repos/acme/web/installation', undefined, jwt)).status, 200);
  t.match(await call(sim, 'GET', '/repos/acme/api/installation', undefined, jwt), { status: 404, body: { message: 'Not Found' } });
  const minted = await call(sim, 'POST', '/app/installations/5/access_tokens', {}, jwt);
  const token = `token ${String(minted.body.token)}`;
  t.equal((await call(sim, 'GET', '/repos/acme/web/deployments', undefined, token)).status, 200);
  t.equal((await call(sim, 'GET', '/repos/acme/api/deployments', undefined, token)).status, 404, 'covered, but not on GitHub');
  t.match(await graphql(sim, 'acme', 'api', token), { body: { data: { repository: null }, errors: [{ type: 'NOT_FOUND' }] } });
  t.match(await graphql(sim, 'acme', 'web', token), { body: { data: { repository: { deployments: { totalCount: 0 } } } } });
});
