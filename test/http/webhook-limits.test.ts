/**
 * The webhook's limits, as an operator configures and observes them: WEBHOOK_RATE_PER_MINUTE, requests
 * refused before the handler (413, 415, 429) counted in gdb_events_total, and the server's deadline for
 * receiving a request (a stalled sender answered 408 and cut).
 */
import t, { type Test } from 'tap';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { REQUEST_TIMEOUT_MS, buildApp } from '../../src/http/http-app.js';
import { loadConfig, ConfigError } from '../../src/config/load-config.js';
import { secretValue } from '../../src/common/rotating-secret.js';
import { signBody } from '../../src/http/hmac.js';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../../src/http/webhook.js';
import { createMetrics } from '../../src/common/metrics.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { openDatabase } from '../harness/database.js';

const KEY = Buffer.from('bridge-webhook-key');
const FLUX_EVENT = JSON.stringify({
  involvedObject: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps', apiVersion: 'kustomize.toolkit.fluxcd.io/v1' },
  severity: 'info',
  timestamp: '2026-12-02T00:00:00Z',
  message: 'Reconciliation finished',
  reason: 'ReconciliationSucceeded',
  reportingController: 'kustomize-controller',
});
const MINIMAL = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', GITHUB_TOKEN: 'ghp_test', CLUSTER_NAME: 'prod-eu-1' };

async function setup(t: Test, webhookRatePerMinute?: number, extra: { stateToken?: string | (() => Promise<string>) } = {}) {
  const db = openDatabase(':memory:');
  const metrics = createMetrics();
  const app = await buildApp({
    webhookKey: KEY,
    queue: new QueueStore(db),
    deployments: new DeploymentStore(db),
    sources: new SourceStore(db),
    metrics,
    log: pino({ level: 'silent' }),
    now: Date.now,
    onEnqueued: () => undefined,
    isShuttingDown: () => false,
    readiness: () => ({ ready: true, reasons: [] }),
    activeReconciles: () => 0,
    ...(webhookRatePerMinute ? { webhookRatePerMinute } : {}),
    ...extra,
  });
  t.teardown(async () => {
    await app.close();
    db.close();
  });
  const counters = async () =>
    [...(await app.inject('/metrics')).body.matchAll(/^gdb_events_total\{kind="(\w+)",result="(\w+)"\} ([1-9]\d*)$/gm)]
      .map((m) => `${m[1]}/${m[2]} ${m[3]}`)
      .sort();
  return { app, counters };
}

t.test('WEBHOOK_RATE_PER_MINUTE: unset keeps the built-in default, a whole number from 1 sets it', (t) => {
  t.notOk('webhookRatePerMinute' in loadConfig({ ...MINIMAL }), 'unset: absent');
  t.equal(loadConfig({ ...MINIMAL, WEBHOOK_RATE_PER_MINUTE: ' 100000 ' }).webhookRatePerMinute, 100_000);
  for (const bad of ['0', '-5', '1.5', 'lots']) {
    let problems: string[] = [];
    try {
      loadConfig({ ...MINIMAL, WEBHOOK_RATE_PER_MINUTE: bad });
    } catch (err) {
      problems = err instanceof ConfigError ? err.problems : [String(err)];
    }
    t.match(problems, [new RegExp(`^WEBHOOK_RATE_PER_MINUTE="${bad.replace('.', '\\.')}" must be a whole number from 1 to`)], bad);
  }
  t.end();
});

t.test('requests refused before the handler show in gdb_events_total', async (t) => {
  const s = await setup(t, 2);
  const event = '{"involvedObject":{}}';
  const big = 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES + 1);
  const post = (payload: string, contentType: string) =>
    s.app.inject({
      method: 'POST',
      url: '/webhook',
      payload,
      headers: { 'content-type': contentType, 'x-signature': signBody(KEY, payload) },
    });
  t.equal((await post(big, 'application/json')).statusCode, 413);
  t.equal((await post(event, 'text/plain')).statusCode, 415);
  const unsigned = () =>
    s.app.inject({
      method: 'POST',
      url: '/webhook',
      payload: event,
      headers: { 'content-type': 'application/json', 'x-signature': 'sha256=00' },
    });
  t.equal((await unsigned()).statusCode, 401);
  t.equal((await unsigned()).statusCode, 401);
  t.equal((await unsigned()).statusCode, 429, 'the third failed verification in the minute');
  t.same(
    await s.counters(),
    ['unknown/bad_signature 2', 'unknown/rate_limited 1', 'unknown/too_large 1', 'unknown/unsupported_media_type 1'],
    'each once; the handler counts its own answers, the hook only the others',
  );
  const allowed = await setup(t);
  t.equal(
    (await allowed.app.inject({ method: 'POST', url: '/webhook', payload: event, headers: { 'content-type': 'application/json' } }))
      .statusCode,
    401,
  );
  t.same(await allowed.counters(), ['unknown/bad_signature 1'], 'a request the handler answered is not counted twice');
});

t.test(
  'issue 32: past its failed verifications an address is answered 429 before its body is digested; verified events keep a budget of their own',
  async (t) => {
    const s = await setup(t, 2);
    const send = (signature: string) =>
      s.app.inject({
        method: 'POST',
        url: '/webhook',
        payload: FLUX_EVENT,
        headers: { 'content-type': 'application/json', 'x-signature': signature },
      });
    t.equal((await send(signBody(KEY, FLUX_EVENT))).statusCode, 202);
    t.equal((await send(signBody(KEY, FLUX_EVENT))).statusCode, 202);
    t.equal((await send(signBody(KEY, FLUX_EVENT))).statusCode, 429, 'verified events have their own limit');
    const other = await setup(t, 2);
    const bad = () =>
      other.app.inject({
        method: 'POST',
        url: '/webhook',
        payload: FLUX_EVENT,
        headers: { 'content-type': 'application/json', 'x-signature': 'sha256=00' },
      });
    t.equal((await bad()).statusCode, 401);
    t.equal((await bad()).statusCode, 401);
    const spent = await bad();
    t.equal(spent.statusCode, 429, 'the address spent its failed verifications');
    t.match(spent.headers['retry-after'], /^\d+$/);
    // Refused before any verification: even a good signature from that address waits for the next minute
    // (before, every request was digested first, with every key).
    const good = await other.app.inject({
      method: 'POST',
      url: '/webhook',
      payload: FLUX_EVENT,
      headers: { 'content-type': 'application/json', 'x-signature': signBody(KEY, FLUX_EVENT) },
    });
    t.equal(good.statusCode, 429);
    t.match(good.json<{ error: string }>().error, /too many failed signatures from this address/);
  },
);

t.test('a sender that stalls mid-body is answered 408 and cut', async (t) => {
  const deadline: number = REQUEST_TIMEOUT_MS;
  t.ok(deadline >= 5_000 && deadline <= 30_000, `a deadline in seconds: ${deadline} ms`);
  const s = await setup(t);
  await s.app.listen({ port: 0, host: '127.0.0.1' });
  t.equal(s.app.server.requestTimeout, REQUEST_TIMEOUT_MS);
  t.equal(s.app.server.headersTimeout, REQUEST_TIMEOUT_MS);
  const { port } = s.app.server.address() as net.AddressInfo;
  const answer = await new Promise<string>((resolve) => {
    let out = '';
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write('POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"involvedObject":'),
    );
    socket.on('data', (d: Buffer) => {
      out += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    // Without a deadline the server would hold the socket forever: give up (and fail) after 3 of them.
    const giveUp = setTimeout(() => socket.destroy(), 3 * REQUEST_TIMEOUT_MS);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve(out);
    });
  });
  t.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/, 'answered 408, then the connection closed');
});

t.test(
  'STATE_TOKEN_FILE (/state and the status page): the token the file holds at each request; an unreadable file lets nobody in',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gdb-state-token-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'token');
    writeFileSync(path, 'first\n');
    const { app } = await setup(t, undefined, { stateToken: secretValue({ kind: 'file', path }) });
    const status = async (token: string) => (await app.inject({ url: '/state', headers: { authorization: `Bearer ${token}` } })).statusCode;
    t.equal(await status('first'), 200);
    writeFileSync(path, 'second\n');
    t.equal(await status('first'), 401, 'the old token, once rotated');
    t.equal(await status('second'), 200, 'the new one, without a restart');
    const page = async (token: string) => app.inject({ url: '/', headers: { authorization: `Bearer ${token}` } });
    t.equal((await page('first')).statusCode, 401, 'the status page: the same rule');
    t.match((await page('second')).headers['content-type'], /^text\/html; charset=utf-8/);
    t.equal((await app.inject({ url: '/' })).statusCode, 401);
    rmSync(path);
    t.equal(await status('second'), 401, 'the file gone');
    t.equal((await app.inject({ url: '/state' })).statusCode, 401, 'no header either');
  },
);

t.test('the status page takes the token as a browser sends it (HTTP Basic password, any user name); /state only as Bearer', async (t) => {
  const { app } = await setup(t, undefined, { stateToken: 'the-state-token' });
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const page = async (authorization?: string) => app.inject({ url: '/', headers: authorization ? { authorization } : {} });
  const none = await page();
  t.equal(none.statusCode, 401);
  t.match(none.headers['www-authenticate'], /^Basic realm="github-deployment-bridge status page", charset="UTF-8"$/, 'a browser asks');
  t.match(none.json(), { error: /any user name and the token as password/ });
  t.equal((await page(basic('anyone', 'the-state-token'))).statusCode, 200, 'Basic, the token as password');
  t.equal((await page(basic('', 'the-state-token'))).statusCode, 200, 'an empty user name too');
  t.equal((await page(basic('the-state-token', ''))).statusCode, 401, 'the token as the user name is not the password');
  t.equal((await page(basic('anyone', 'wrong'))).statusCode, 401);
  t.equal((await page(`Basic ${Buffer.from('the-state-token').toString('base64')}`)).statusCode, 401, 'no colon: no password');
  t.equal((await page('Bearer the-state-token')).statusCode, 200, 'Bearer as before');
  const state = async (authorization: string) => app.inject({ url: '/state', headers: { authorization } });
  t.equal((await state(basic('anyone', 'the-state-token'))).statusCode, 401, '/state: Bearer only, as before');
  t.equal((await state(basic('anyone', 'the-state-token'))).headers['www-authenticate'], undefined, 'and no browser dialog');
  t.equal((await state('Bearer the-state-token')).statusCode, 200);
});
