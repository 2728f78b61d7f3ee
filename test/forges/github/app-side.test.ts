/**
 * GitHub App auth through the real clients against the simulator, which verifies every JWT with the
 * App's public key, mints installation tokens and opens only their installation's repositories.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { ForgePaused } from '../../../src/forges/forge-health.js';
import { generateKeyPairSync } from 'node:crypto';
import type { SimInstallation } from '../../harness/github-sim.js';
import { requestLog, sha, startRig, target, type Rig } from './rig.js';

const APP_ID = 31337;
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const INSTALLATIONS: SimInstallation[] = [{ id: 501, account: 'acme', repositories: ['shop', 'web'] }];
/** The repositories on the simulated GitHub: acme/secret and globex/api exist, whatever the App's installations see. */
const REPOS = ['acme/shop', 'acme/web', 'acme/secret', 'globex/api'];

async function appRig(
  t: Test,
  o: {
    pathPrefix?: string;
    publicKey?: unknown;
    installationId?: number;
    permissions?: Record<string, string>;
    installations?: SimInstallation[];
  } = {},
): Promise<Rig> {
  return startRig(t, {
    sim: {
      repos: REPOS,
      ...(o.pathPrefix ? { pathPrefix: o.pathPrefix } : {}),
      app: {
        id: APP_ID,
        publicKey: (o.publicKey ?? keys.publicKey) as never,
        installations: o.installations ?? INSTALLATIONS,
        ...(o.permissions ? { permissions: o.permissions } : {}),
      },
    },
    auth: { kind: 'app', appId: APP_ID, privateKey: PEM, ...(o.installationId ? { installationId: o.installationId } : {}) },
  });
}

const kind = (a: object) => Object.keys(a)[0];

/** Waits (bounded) until the condition holds: the credential monitor re-checks on its own. */
async function settled(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('condition not reached');
}

for (const prefix of ['', '/api/v3']) {
  t.test(
    `App auth end to end${prefix ? ' under the GitHub Enterprise Server prefix' : ''}: JWT → installation → token → deployment`,
    async (t) => {
      const rig = await appRig(t, prefix ? { pathPrefix: prefix } : {});
      t.match(rig.sim.url, prefix ? /\/api\/v3$/ : /:\d+$/);
      await rig.side.monitor.checkNow();
      t.equal(rig.side.health.credentialState, 'ok', 'GET /app accepted the JWT');
      t.equal(kind(await rig.attempt(target(sha('a1')), 'success')), 'ok');
      t.equal(kind(await rig.attempt(target(sha('a2'), 'acme/web'), 'success')), 'ok');
      t.same(
        requestLog(rig.sim),
        ['app 200', 'installation 200', 'token 201', 'list 200', 'create 201', 'status 201', 'list 200', 'create 201', 'status 201'],
        'one look-up for the owner, one token for both repositories',
      );
      t.same(
        rig.sim.requests.map((r) => r.credential),
        ['jwt', 'jwt', 'jwt', 'installation', 'installation', 'installation', 'installation', 'installation', 'installation'],
      );
      t.ok(rig.sim.requests.filter((r) => r.credential === 'installation').every((r) => r.installationId === 501));
      t.same(
        rig.sim.app!.issued.map((i) => i.permissions),
        [{ deployments: 'write', metadata: 'read' }],
        'the token asks for the two permissions only',
      );
      t.same(rig.trail(), [['success']]);
      t.same(rig.trail('acme/web'), [['success']]);
      t.same(rig.sim.violations, []);
      const metrics = await rig.metrics.registry.metrics();
      t.match(
        metrics,
        /gdb_forge_requests_total\{forge="github",operation="GET \/repos\/\{owner\}\/\{repo\}\/installation",status="200"\} 1/,
        'App calls are counted',
      );
      t.match(
        metrics,
        /gdb_forge_requests_total\{forge="github",operation="POST \/app\/installations\/\{installation_id\}\/access_tokens",status="201"\} 1/,
      );
      t.match(metrics, /gdb_forge_requests_total\{forge="github",operation="GET \/app",status="200"\} 1/);
      t.ok(
        rig.side.health.snapshot().budgets.some((b) => b.scope === 'installation 501' && b.resource === 'core' && b.remaining < b.limit),
        "the installation's budget is tracked",
      );
    },
  );
}

t.test('not installed on the owner: skipped with "App not installed on owner/repo", not asked again within the hour', async (t) => {
  const rig = await appRig(t);
  const a = await rig.attempt(target(sha('g1'), 'globex/api'), 'success');
  t.ok('refused' in a);
  if (!('refused' in a)) return;
  t.match(a.refused.message, /^App not installed on globex\/api: install the GitHub App on globex/);
  t.equal(a.refused.refusal.code, 'github_not_installed');
  rig.clock.now += 30 * 60_000;
  t.ok(
    'refused' in (await rig.attempt(target(sha('g2'), 'globex/api'), 'success')),
    'another commit of the same repository: still skipped',
  );
  t.same(requestLog(rig.sim), ['installation 404'], 'one look-up only');
});

t.test('a repository the installation cannot see: 404 with what to do', async (t) => {
  const rig = await appRig(t);
  t.equal(kind(await rig.attempt(target(sha('s1')), 'success')), 'ok');
  const a = await rig.attempt(target(sha('s2'), 'acme/secret'), 'success');
  t.ok(
    'refused' in a &&
      /^acme\/secret not found, or the App installation cannot see it: add secret to the App's installation/.test(a.refused.message),
  );
  t.same(rig.sim.writes().length, 2, 'nothing written to acme/secret');
});

t.test('a pinned installation is used as is: no look-up', async (t) => {
  const rig = await appRig(t, { installationId: 501 });
  t.equal(kind(await rig.attempt(target(sha('p1')), 'success')), 'ok');
  t.same(requestLog(rig.sim), ['token 201', 'list 200', 'create 201', 'status 201']);
});

t.test('a revoked installation token: 401, credentials checked again, a fresh token, the work goes on', async (t) => {
  const rig = await appRig(t);
  t.equal(kind(await rig.attempt(target(sha('r1')), 'in_progress')), 'ok');
  rig.sim.app!.revokeTokens();
  t.equal(kind(await rig.attempt(target(sha('r1')), 'success')), 'retry', 'the 401 keeps the work');
  await settled(() => rig.side.health.pausedUntil() === null);
  t.pass('resumed after the immediate re-check');
  t.equal(kind(await rig.attempt(target(sha('r1')), 'success')), 'ok');
  t.same(requestLog(rig.sim).slice(5), ['status 401', 'app 200', 'token 201', 'status 201']);
  t.equal(rig.sim.app!.issued.length, 2);
  t.same(rig.trail(), [['in_progress', 'success']], 'no status lost or repeated');
});

t.test('installation tokens: one mint for concurrent requests, one per installation, minted again a minute before expiry', async (t) => {
  const rig = await appRig(t, { installations: [...INSTALLATIONS, { id: 502, account: 'globex' }] });
  const tokens = () => requestLog(rig.sim).filter((r) => r.startsWith('token'));
  const both = await Promise.all([rig.attempt(target(sha('t1')), 'success'), rig.attempt(target(sha('t2'), 'acme/web'), 'success')]);
  t.same(both.map(kind), ['ok', 'ok']);
  t.same(tokens(), ['token 201'], 'concurrent requests of one installation share one mint');
  t.equal(kind(await rig.attempt(target(sha('t3'), 'globex/api'), 'success')), 'ok');
  t.same(
    rig.sim.app!.issued.map((i) => i.installationId),
    [501, 502],
    'one token per installation',
  );
  // auth-app keeps tokens by the wall clock (GitHub's tokens live an hour); the simulator reads the same clock.
  const wall = Date.now.bind(Date);
  t.teardown(() => {
    Date.now = wall;
  });
  Date.now = () => wall() + 58 * 60_000;
  t.equal(kind(await rig.attempt(target(sha('t4')), 'success')), 'ok');
  t.equal(rig.sim.app!.issued.length, 2, 'reused 58 minutes on');
  Date.now = () => wall() + 59 * 60_000 + 1_000;
  t.ok(rig.sim.app!.issued[0]!.expiresAt > Date.now(), 'the first token has not expired yet');
  t.equal(kind(await rig.attempt(target(sha('t5')), 'success')), 'ok');
  t.same(
    rig.sim.app!.issued.map((i) => i.installationId),
    [501, 502, 501],
    'a new token a minute before the old one expires',
  );
  t.same(rig.sim.violations, []);
});

t.test("a secondary limit pauses only the installation that hit it; the App's own requests and other installations go on", async (t) => {
  const rig = await appRig(t, { installations: [...INSTALLATIONS, { id: 502, account: 'globex' }] });
  rig.sim.inject({ method: 'POST', path: /^\/repos\/acme\//, ...rig.sim.faults.secondaryRateLimit(120) });
  const acme = await rig.attempt(target(sha('l1')), 'success');
  t.ok('retry' in acme, 'acme meets the limit: work for later');
  const until = rig.side.health.pausedUntil('installation 501');
  t.ok(until !== null && until >= rig.clock.now + 120_000, 'installation 501 paused for the retry-after');
  t.equal(rig.side.health.pausedUntil(), null, 'the worker is not paused');
  const before = rig.sim.requests.length;
  t.equal(kind(await rig.attempt(target(sha('l2'), 'globex/api'), 'success')), 'ok', 'globex goes on, through the App (look-up, token)');
  t.same(requestLog(rig.sim, before), ['installation 200', 'token 201', 'list 200', 'create 201', 'status 201']);
  const again = await rig.attempt(target(sha('l1')), 'success');
  t.ok('retry' in again && again.retry instanceof ForgePaused && again.retry.pause.scope === 'installation 501', 'acme waits');
  t.equal(rig.sim.requests.length, before + 5, 'nothing sent for acme while paused');
  t.match(rig.side.health.snapshot(), { pause: null, pauses: [{ scope: 'installation 501', kind: 'secondary' }] });
  rig.clock.now = until!;
  t.equal(kind(await rig.attempt(target(sha('l1')), 'success')), 'ok', 'acme after its pause');
  t.same(rig.trail(), [['success']], 'one deployment, one success');
});

t.test('a wrong App key: the check is refused, not ready with the reason, no GitHub work', async (t) => {
  const rig = await appRig(t, { publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey });
  await rig.side.monitor.checkNow();
  t.match(rig.side.health.readinessProblem(), /^GitHub credentials rejected: 401 A JSON web token could not be decoded/);
  const before = rig.sim.requests.length;
  t.equal(kind(await rig.attempt(target(sha('w1')), 'success')), 'retry');
  t.equal(rig.sim.requests.length, before, 'paused: nothing sent');
});

t.test('an App without Deployments write: not ready, says which permission to give', async (t) => {
  const rig = await appRig(t, { permissions: { deployments: 'read', metadata: 'read' } });
  await rig.side.monitor.checkNow();
  t.match(rig.side.health.readinessProblem(), /has Deployments permission "read": give it Deployments read & write/);
});

t.test('an App without Contents read: ready, and told once that DORA lead times stay unknown', async (t) => {
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
  for (const [permissions, said] of [
    [{ deployments: 'write', metadata: 'read' }, 1],
    [{ deployments: 'write', metadata: 'read', contents: 'read' }, 0],
  ] as const) {
    warnings.length = 0;
    const rig = await startRig(t, {
      sim: { app: { id: APP_ID, publicKey: keys.publicKey, installations: INSTALLATIONS, permissions } },
      auth: { kind: 'app', appId: APP_ID, privateKey: PEM },
      log,
    });
    await rig.side.monitor.checkNow();
    await rig.side.monitor.checkNow();
    t.equal(rig.side.health.readinessProblem(), undefined, 'Contents is optional: no problem');
    t.equal(warnings.filter((w) => /no Contents read permission: DORA lead times stay unknown/.test(w)).length, said);
  }
});
