import t, { type Test } from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import { startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions } from '../github-sim.js';

const APP_ID = 99;
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A JWT written by hand (not by the bridge's code), so the simulator's check is tested on its own. */
function jwt(claims: Record<string, unknown>, o: { key?: typeof keys.privateKey; alg?: string } = {}): string {
  const unsigned = `${b64({ alg: o.alg ?? 'RS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${unsigned}.${sign('sha256', Buffer.from(unsigned), o.key ?? keys.privateKey).toString('base64url')}`;
}
const nowS = () => Math.floor(Date.now() / 1000);
const good = () => jwt({ iat: nowS() - 60, exp: nowS() + 540, iss: String(APP_ID) });

async function setup(
  t: Test,
  o: Partial<GitHubSimulatorOptions['app']> = {},
  extra: GitHubSimulatorOptions = {},
): Promise<GitHubSimulator> {
  const sim = await startGitHubSimulator({
    tokens: ['ghp_pat'],
    ...extra,
    app: {
      id: APP_ID,
      publicKey: keys.publicKey,
      installations: [
        { id: 7, account: 'acme', repositories: ['web'] },
        { id: 8, account: 'globex', suspended: true },
      ],
      ...o,
    },
  });
  t.teardown(() => sim.close());
  return sim;
}

/** The fields these tests read from the simulator's answers (a token mint, or an error message). */
interface Answer {
  token?: string;
  expires_at?: string;
  message?: string;
}

async function call(
  sim: GitHubSimulator,
  method: string,
  path: string,
  auth?: string,
  body?: unknown,
): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    signal: AbortSignal.timeout(5000),
    headers: { ...(auth ? { authorization: auth } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Answer) : {} };
}

t.test("JWTs are verified with the App public key and GitHub's claim rules", async (t) => {
  const sim = await setup(t);
  t.match(await call(sim, 'GET', '/app', `Bearer ${good()}`), {
    status: 200,
    body: { id: APP_ID, permissions: { deployments: 'write', metadata: 'read' } },
  });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const rows: Array<[string, string, RegExp]> = [
    ['signed with another key', jwt({ iat: nowS() - 60, exp: nowS() + 540, iss: String(APP_ID) }, { key: other }), /could not be decoded/],
    ['expired', jwt({ iat: nowS() - 700, exp: nowS() - 100, iss: String(APP_ID) }), /'Expiration time' claim/],
    ['longer than ten minutes', jwt({ iat: nowS() - 10, exp: nowS() + 900, iss: String(APP_ID) }), /too far in the future/],
    ['issued in the future', jwt({ iat: nowS() + 300, exp: nowS() + 500, iss: String(APP_ID) }), /'Issued at' claim/],
    ['another App', jwt({ iat: nowS() - 60, exp: nowS() + 540, iss: '100' }), /Integration not found/],
    ['not a JWT', 'a.b.c', /could not be decoded/],
  ];
  for (const [name, token, message] of rows)
    t.match(await call(sim, 'GET', '/app', `Bearer ${token}`), { status: 401, body: { message } }, name);
  t.match(await call(sim, 'GET', '/app', 'token ghp_pat'), { status: 401 }, 'a personal token is not an App');
});

t.test('installations: looked up per repository; tokens minted, scoped to the installation, expiring and revocable', async (t) => {
  const sim = await setup(t, {}, { repos: ['acme/web', 'acme/api', 'globex/x'] });
  t.match(await call(sim, 'GET', '/repos/acme/web/installation', `Bearer ${good()}`), {
    status: 200,
    body: { id: 7, account: { login: 'acme' }, repository_selection: 'selected' },
  });
  t.match(await call(sim, 'GET', '/repos/acme/api/installation', `Bearer ${good()}`), { status: 404 }, 'a repository not selected');
  t.match(await call(sim, 'GET', '/repos/other/web/installation', `Bearer ${good()}`), { status: 404 }, 'not installed on the owner');
  t.match(await call(sim, 'GET', '/repos/acme/web/installation', 'token ghp_pat'), { status: 401 }, 'needs the JWT');
  const minted = await call(sim, 'POST', '/app/installations/7/access_tokens', `Bearer ${good()}`, {
    permissions: { deployments: 'write', metadata: 'read' },
  });
  t.match(minted, {
    status: 201,
    body: { token: /^ghs_/, expires_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, permissions: { deployments: 'write' } },
  });
  t.ok(Date.parse(minted.body.expires_at ?? '') > Date.now() + 59 * 60_000, 'an hour, as on GitHub');
  const token = `token ${minted.body.token ?? ''}`;
  t.equal((await call(sim, 'GET', '/repos/acme/web/deployments', token)).status, 200);
  t.equal((await call(sim, 'GET', '/repos/acme/api/deployments', token)).status, 404, 'outside the installation');
  t.equal((await call(sim, 'GET', '/rate_limit', token)).status, 200);
  t.match(sim.requests.at(-2), { credential: 'installation', installationId: 7 });
  t.match(await call(sim, 'POST', '/app/installations/7/access_tokens', `Bearer ${good()}`, { permissions: { administration: 'write' } }), {
    status: 422,
    body: { message: /not granted/ },
  });
  t.match(await call(sim, 'POST', '/app/installations/8/access_tokens', `Bearer ${good()}`), {
    status: 403,
    body: { message: /suspended/ },
  });
  t.match(await call(sim, 'POST', '/app/installations/9/access_tokens', `Bearer ${good()}`), { status: 404 });
  t.equal(sim.writes().length, 0, 'token mints are not repository writes');
  sim.app!.revokeTokens();
  t.match(await call(sim, 'GET', '/repos/acme/web/deployments', token), { status: 401, body: { message: 'Bad credentials' } }, 'revoked');
  t.equal((await call(sim, 'GET', '/repos/acme/web/deployments', `Bearer ${good()}`)).status, 401, 'a JWT does not open repositories');
});

t.test('expired installation tokens are refused; /rate_limit checks credentials', async (t) => {
  const sim = await setup(t, { tokenTtlSeconds: 0 });
  const minted = await call(sim, 'POST', '/app/installations/7/access_tokens', `Bearer ${good()}`);
  t.equal((await call(sim, 'GET', '/repos/acme/web/deployments', `token ${minted.body.token ?? ''}`)).status, 401);
  t.equal((await call(sim, 'GET', '/rate_limit')).status, 200, 'anonymous');
  t.equal((await call(sim, 'GET', '/rate_limit', 'token ghp_pat')).status, 200);
  t.match(await call(sim, 'GET', '/rate_limit', 'token ghp_wrong'), { status: 401, body: { message: 'Bad credentials' } });
});

t.test('git commits need contents read: the default App grants it, a token minted without it gets 403', async (t) => {
  const sim = await setup(t);
  const path = `/repos/acme/web/git/commits/${'c'.repeat(40)}`;
  const mint = async (permissions: Record<string, string>) => {
    const minted = await call(sim, 'POST', '/app/installations/7/access_tokens', `Bearer ${good()}`, { permissions });
    t.equal(minted.status, 201, JSON.stringify(permissions));
    return `token ${minted.body.token ?? ''}`;
  };
  t.equal((await call(sim, 'GET', path, await mint({ contents: 'read', metadata: 'read' }))).status, 200);
  t.match(await call(sim, 'GET', path, await mint({ deployments: 'write', metadata: 'read' })), {
    status: 403,
    body: { message: 'Resource not accessible by integration' },
  });
  t.equal(
    (await call(sim, 'GET', `/repos/acme/api/git/commits/${'c'.repeat(40)}`, await mint({ contents: 'read' }))).status,
    404,
    'outside the installation',
  );
  t.equal(sim.commitReads().length, 3);
  t.same(sim.violations, []);
});
