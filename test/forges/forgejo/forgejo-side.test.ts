import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { ForgeError } from '../../../src/common/errors.js';
import { createForgejoSide } from '../../../src/forges/forgejo/forgejo-side.js';
import { TOKEN_SCOPE } from '../../../src/forges/forge-health.js';
import { parseForgejoUrl, type ForgejoLocation } from '../../../src/forges/forgejo/forgejo-url.js';
import { retryAfterFault, startForgejoSimulator, type ForgejoSimulator } from '../../harness/forgejo-sim.js';

const TOKEN = 'forgejo_side_test_token';
const NOW = 1_750_000_000_000;
const SHA = 'd'.repeat(40);
const repo = { owner: 'acme', repo: 'web' };
const body = { state: 'pending' as const, context: 'deploy/staging (eu-1)', description: 'Progressing' };

/** A simulator and a Forgejo side on a fixed clock (no credential re-check comes due during a test). */
async function setup(t: Test, token = TOKEN) {
  const sim: ForgejoSimulator = await startForgejoSimulator({ tokens: [TOKEN], repos: ['acme/web'] });
  t.teardown(() => sim.close());
  const metrics = createMetrics();
  const side = createForgejoSide({
    location: parseForgejoUrl(sim.url) as ForgejoLocation,
    token,
    userAgent: 'gdb-test',
    metrics,
    log: pino({ level: 'silent' }),
    now: () => NOW,
  });
  t.teardown(() => side.monitor.stop());
  const counted = async () =>
    (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('gdb_forge_') && l.includes('forge="forgejo"'));
  return { sim, side, counted };
}

/** The ForgeError a call fails with (fails the test when it succeeds). */
async function failure(t: Test, p: Promise<unknown>): Promise<ForgeError> {
  const err = await p.then(
    () => t.fail('succeeded'),
    (e: unknown) => e,
  );
  t.type(err, ForgeError);
  return err as ForgeError;
}

t.test('a good token: the check passes, statuses go out, requests are counted by operation and status', async (t) => {
  const { sim, side, counted } = await setup(t);
  t.equal(side.health.credentialState, 'unchecked');
  await side.monitor.start();
  t.equal(side.health.credentialState, 'ok');
  t.equal(side.health.readinessProblem(), undefined);
  t.match(await side.port.createStatus(repo, SHA, body), { status: 'pending', context: body.context });
  t.match(await side.port.latestStatus(repo, SHA, body.context), { status: 'pending' });
  t.same(
    sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`),
    ['GET /user 200', `POST /repos/acme/web/statuses/${SHA} 201`, `GET /repos/acme/web/statuses/${SHA} 200`],
  );
  t.same(
    (await counted()).filter((l) => l.startsWith('gdb_forge_requests_total')),
    [
      'gdb_forge_requests_total{forge="forgejo",operation="credentialCheck",status="200"} 1',
      'gdb_forge_requests_total{forge="forgejo",operation="createStatus",status="201"} 1',
      'gdb_forge_requests_total{forge="forgejo",operation="listStatuses",status="200"} 1',
    ],
  );
});

t.test('a bad token: rejected, not ready, and nothing more is sent until a check passes', async (t) => {
  const { sim, side, counted } = await setup(t, 'not-the-token');
  await side.monitor.start();
  t.equal(side.health.credentialState, 'rejected');
  t.match(side.health.readinessProblem(), /^Forgejo credentials rejected: 401 /);
  const sent = sim.requests.length;
  const err = await failure(t, side.port.createStatus(repo, SHA, body));
  t.match(err, { notSent: true, status: undefined, message: /^Forgejo work paused until/ });
  t.ok(err.retryAt !== undefined && err.retryAt > NOW, 'retryAt: the next check');
  await failure(t, side.port.latestStatus(repo, SHA, body.context));
  t.equal(sim.requests.length, sent, 'no request reached Forgejo');
  t.ok((await counted()).includes('gdb_forge_requests_total{forge="forgejo",operation="any",status="paused"} 2'));
  t.ok((await counted()).includes('gdb_forge_pauses_total{forge="forgejo",kind="credentials"} 1'));
});

t.test('a 401 answered to a status pauses Forgejo work like a failed check', async (t) => {
  const { sim, side } = await setup(t);
  await side.monitor.start();
  sim.inject({ method: 'POST', path: '/statuses/', status: 401 });
  t.match(await failure(t, side.port.createStatus(repo, SHA, body)), { status: 401, notSent: false });
  t.equal(side.health.credentialState, 'rejected');
  t.match(side.health.readinessProblem(), /^Forgejo credentials rejected: 401 /);
  const sent = sim.requests.length;
  t.match(await failure(t, side.port.createStatus(repo, SHA, body)), { notSent: true });
  t.equal(sim.requests.length, sent, 'not sent');
});

t.test('a 403 from GET /user is a valid token without read:user: accepted', async (t) => {
  const { sim, side } = await setup(t);
  sim.inject({ method: 'GET', path: '/user', status: 403, body: { message: 'token does not have scope read:user' } });
  await side.monitor.start();
  t.match(sim.requests, [{ method: 'GET', path: '/user', status: 403 }]);
  t.equal(side.health.credentialState, 'ok');
  t.equal(side.health.readinessProblem(), undefined);
});

t.test('a 429 with Retry-After pauses Forgejo work until then', async (t) => {
  const { sim, side, counted } = await setup(t);
  sim.inject({ method: 'POST', path: '/statuses/', ...retryAfterFault(30) });
  t.match(await failure(t, side.port.createStatus(repo, SHA, body)), { status: 429, retryAt: NOW + 30_000 });
  t.equal(side.health.pausedUntil(TOKEN_SCOPE), NOW + 30_000);
  const sent = sim.requests.length;
  t.match(await failure(t, side.port.createStatus(repo, SHA, body)), { notSent: true, retryAt: NOW + 30_000 });
  t.equal(sim.requests.length, sent, 'not sent');
  t.ok((await counted()).includes('gdb_forge_pauses_total{forge="forgejo",kind="secondary"} 1'));
  t.equal(side.health.outage(), undefined, 'a pause is not an outage');
});

t.test('a 502 shows as an outage until a request succeeds; it does not pause', async (t) => {
  const { sim, side, counted } = await setup(t);
  sim.inject({ method: 'POST', path: '/statuses/', status: 502, body: 'Bad Gateway' });
  t.match(await failure(t, side.port.createStatus(repo, SHA, body)), { status: 502 });
  t.match(side.health.outage(), /^Forgejo failing since 2025-06-15T15:06:40.000Z: create pending status .*: 502/);
  t.equal(side.health.pausedUntil(TOKEN_SCOPE), null);
  t.equal(side.health.credentialState, 'unchecked', 'credentials untouched');
  await side.port.createStatus(repo, SHA, body);
  t.equal(side.health.outage(), undefined);
  t.equal(side.health.credentialState, 'ok', 'a success proves the token');
  t.ok((await counted()).includes('gdb_forge_requests_total{forge="forgejo",operation="createStatus",status="502"} 1'));
});
