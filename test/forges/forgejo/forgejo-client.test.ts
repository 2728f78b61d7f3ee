import t, { type Test } from 'tap';
import { ForgejoClient, MAX_STATUS_PAGES, type ForgejoClientOptions } from '../../../src/forges/forgejo/forgejo-client.js';
import { ForgeError, forgeRefused, isForgeRetryable } from '../../../src/common/errors.js';
import type { CreateStatusBody } from '../../../src/forges/forgejo/forgejo-types.js';
import { parseForgejoUrl, type ForgejoLocation } from '../../../src/forges/forgejo/forgejo-url.js';
import { retryAfterFault, startForgejoSimulator, type ForgejoSimulator, type ForgejoSimulatorOptions } from '../../harness/forgejo-sim.js';

const TOKEN = 'forgejo_secret_token_0123456789';
const SHA = 'c'.repeat(40);
const r = { owner: 'acme', repo: 'web' };
const NOW = 1_750_000_000_000;
const body = (over: Partial<CreateStatusBody> = {}): CreateStatusBody => ({
  state: 'pending',
  context: 'deploy/staging (eu-1)',
  description: 'Progressing',
  ...over,
});

async function setup(
  t: Test,
  options: ForgejoSimulatorOptions = {},
  client: Partial<ForgejoClientOptions> = {},
): Promise<{ sim: ForgejoSimulator; forgejo: ForgejoClient; apiBase: string; seen: Array<[string, number | string]> }> {
  const sim = await startForgejoSimulator({ tokens: [TOKEN], repos: ['acme/web'], ...options });
  t.teardown(() => sim.close());
  const seen: Array<[string, number | string]> = [];
  const at = parseForgejoUrl(`${sim.url}//`) as ForgejoLocation;
  const forgejo = new ForgejoClient({
    apiBase: at.apiBase,
    token: TOKEN,
    userAgent: 'gdb-test',
    now: () => NOW,
    observe: (op, outcome) => seen.push([op, outcome]),
    ...client,
  });
  return { sim, forgejo, apiBase: at.apiBase, seen };
}

/** The error a promise rejects with; fails the test when it resolves. */
async function failure(t: Test, p: Promise<unknown>): Promise<ForgeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, ForgeError);
  t.notMatch(
    JSON.stringify({ ...(err as object), message: (err as Error).message, cause: String((err as Error).cause) }),
    TOKEN,
    'no token',
  );
  return err as ForgeError;
}

t.test('parseForgejoUrl: root or sub-path, any trailing slashes, /api/v1 tolerated; credentials refused', (t) => {
  const ok = (v: string) => parseForgejoUrl(v) as ForgejoLocation;
  t.same(ok('https://git.example.com'), {
    webUrl: 'https://git.example.com',
    apiBase: 'https://git.example.com/api/v1',
    host: 'git.example.com',
  });
  t.same(ok(' https://Example.COM:8443/forgejo// '), {
    webUrl: 'https://example.com:8443/forgejo',
    apiBase: 'https://example.com:8443/forgejo/api/v1',
    host: 'example.com:8443',
  });
  t.equal(ok('http://git.local/sub/api/v1/').apiBase, 'http://git.local/sub/api/v1', 'an API URL is not doubled');
  t.match(parseForgejoUrl('https://bot:hunter2@git.example.com'), { problem: /must not hold credentials/ });
  t.notMatch(JSON.stringify(parseForgejoUrl('https://bot:hunter2@git.example.com')), 'hunter2');
  t.match(parseForgejoUrl('https://git.example.com/?x=1'), { problem: /query or fragment/ });
  t.match(parseForgejoUrl('ftp://git.example.com'), { problem: /https or http/ });
  t.match(parseForgejoUrl('git.example.com', 'X'), { problem: 'X is not an absolute URL' });
  t.end();
});

t.test('createStatus sends `Authorization: token …` and the swagger body; reads back the stored status', async (t) => {
  const { sim, forgejo, seen } = await setup(t, { pathPrefix: '/forgejo' });
  const created = await forgejo.createStatus(r, SHA, body({ target_url: 'https://pr-42.preview.example.com/' }));
  t.match(created, { id: 1, status: 'pending', context: 'deploy/staging (eu-1)', target_url: 'https://pr-42.preview.example.com/' });
  t.match(sim.requests[0], { method: 'POST', credential: 'token', path: `/repos/acme/web/statuses/${SHA}` });
  t.same(await forgejo.currentUser().then((u) => u.login), 'deploy-bridge');
  t.same(seen, [
    ['createStatus', 201],
    ['credentialCheck', 200],
  ]);
  t.same(sim.violations, []);
});

t.test('latestStatus: the newest of one context, also within one second, across pages, bounded', async (t) => {
  const { sim, forgejo } = await setup(t, { clock: () => NOW });
  t.equal(await forgejo.latestStatus(r, SHA, 'deploy/staging (eu-1)'), null, 'none yet');
  await forgejo.createStatus(r, SHA, body());
  await forgejo.createStatus(r, SHA, body({ state: 'success', description: 'Ready' }));
  t.match(await forgejo.latestStatus(r, SHA, ' deploy/staging (eu-1) '), { id: 2, status: 'success' }, 'same second: still the newest');
  for (let i = 0; i < 60; i++) await forgejo.createStatus(r, SHA, body({ context: `ci/${i}`, state: 'success' }));
  const before = sim.requests.length;
  t.match(await forgejo.latestStatus(r, SHA, 'deploy/staging (eu-1)'), { id: 2 }, 'found on page 2');
  t.equal(sim.requests.length - before, 2, 'two pages of 50');
  t.match(sim.requests.at(-1)?.query, { sort: 'leastindex', limit: '50', page: '2' });
  for (let i = 0; i < 200; i++) await forgejo.createStatus(r, SHA, body({ context: `lint/${i}`, state: 'success' }));
  const start = sim.requests.length;
  t.equal(await forgejo.latestStatus(r, SHA, 'deploy/staging (eu-1)'), null, 'beyond the newest 250: not looked for');
  t.equal(sim.requests.length - start, MAX_STATUS_PAGES);
  t.same(sim.violations, []);
});

t.test('refusals are typed: 401, 404 and the 500 of an unknown commit', async (t) => {
  const { forgejo, apiBase, seen } = await setup(t, { commits: { 'acme/web': [SHA] } });
  const bad = new ForgejoClient({ apiBase, token: 'nope', userAgent: 'x' });
  const e401 = await failure(t, bad.currentUser());
  t.match(e401, { status: 401, operation: 'credentialCheck', forgeMessage: /invalid/ });
  t.ok(isForgeRetryable(e401), '401: retried once the credentials pass');
  const e404 = await failure(t, forgejo.createStatus({ owner: 'acme', repo: 'gone' }, SHA, body()));
  t.match(e404, { status: 404, message: /^create pending status "deploy\/staging \(eu-1\)" on acme\/gone@ccccccc: 404 The target/ });
  t.ok(forgeRefused(e404) && !isForgeRetryable(e404), '404: refused, not retried');
  const e500 = await failure(t, forgejo.createStatus(r, 'd'.repeat(40), body()));
  t.match(e500, {
    status: 500,
    forgeMessage: undefined,
    message: /: 500 Internal Server Error \(Forgejo also answers 500 when the commit is not in the repository\)$/,
  });
  t.ok(isForgeRetryable(e500) && !forgeRefused(e500), 'an unknown commit looks like an outage');
  t.same(
    seen.map(([, o]) => o),
    [404, 500],
  );
});

t.test('429 and 503 with Retry-After give retryAt; timeouts, resets and unreadable answers have no status', async (t) => {
  const { sim, forgejo, seen } = await setup(t, {}, { timeoutMs: 200 });
  sim.inject({ method: 'POST', ...retryAfterFault(7) });
  t.match(await failure(t, forgejo.createStatus(r, SHA, body())), { status: 429, retryAt: NOW + 7000, message: /429 Too Many Requests$/ });
  sim.inject({ method: 'GET', ...retryAfterFault('Wed, 01 Jul 2026 00:00:00 GMT', 503) });
  t.match(await failure(t, forgejo.listStatuses(r, SHA)), { status: 503, retryAt: Date.parse('2026-07-01T00:00:00Z') });
  sim.inject({ method: 'GET', status: 502 });
  const e502 = await failure(t, forgejo.listStatuses(r, SHA));
  t.ok(e502.retryAt === undefined && isForgeRetryable(e502), 'a 502 is retried, without a time');
  sim.inject({ method: 'POST', hang: true });
  const hung = await failure(t, forgejo.createStatus(r, SHA, body()));
  t.match(hung, { status: undefined, message: /timed out$/ });
  t.ok(isForgeRetryable(hung) && !forgeRefused(hung), 'a timeout may have landed: not refused');
  sim.inject({ method: 'GET', reset: true });
  t.match(await failure(t, forgejo.currentUser()), { status: undefined, message: /network error/ });
  sim.inject({ method: 'POST', status: 201, body: 'created, maybe' });
  t.match(await failure(t, forgejo.createStatus(r, SHA, body())), { status: undefined, message: /not JSON/ });
  t.same(
    seen.map(([, o]) => o),
    [429, 503, 502, 'timeout', 'network', 201],
  );
});

t.test('the token may come from a function, read before each request', async (t) => {
  let reads = 0;
  const token = async () => {
    reads++;
    return Promise.resolve(TOKEN);
  };
  const { forgejo } = await setup(t, {}, { token });
  await forgejo.currentUser();
  await forgejo.listStatuses(r, SHA);
  t.equal(reads, 2);
});

t.test('a token that cannot be read is a ForgeError without a status, and no request leaves', async (t) => {
  const token = () => Promise.reject(new Error('ENOENT: /run/secrets/forgejo-token'));
  const { sim, forgejo } = await setup(t, {}, { token });
  const err = await failure(t, forgejo.currentUser());
  t.match(err, { status: undefined, message: /cannot read the token: ENOENT/ });
  t.equal(sim.requests.length, 0);
});
