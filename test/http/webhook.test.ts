import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../../src/http/http-app.js';
import { signBody } from '../../src/http/hmac.js';
import type { Readiness } from '../../src/health/readiness.js';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../../src/http/webhook.js';
import { WEBHOOK_RATE_PER_MINUTE } from '../../src/common/request-rates.js';
import { createMetrics } from '../../src/common/metrics.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { fluxEventsDir } from '../fixtures/locate.js';
import type { StateBody } from '../harness/state-body.js';
import { openDatabase } from '../harness/database.js';

const FIXTURES = fluxEventsDir();
const fixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));

const KEY = Buffer.from('bridge-webhook-key');
const KUSTOMIZATION = fixture('kustomization-progressing-changeset.info.captured.json');
const HELMRELEASE = fixture('helmrelease-upgrade-succeeded.info.v2beta1-era.issue-4453.json');
const PARTIAL = fixture('helmrelease-annotation-metadata-deploymentid.partial.rfc-0008.json');
const vector = JSON.parse(fixture('generic-hmac-test-vector.json').toString('utf8')) as {
  hmacKey: string;
  bodyFile: string;
  expectedHeaders: { 'X-Signature': string };
};
const NOW = Date.parse('2024-07-12T08:56:40Z');

interface QueueRow {
  kind: string;
  namespace: string;
  name: string;
  state: string;
}

/** The real app over a real SQLite file; every handle and the temp dir go at teardown. */
async function setup(t: Test, opts: { key?: Buffer; stateToken?: string; watchNamespaces?: string[]; dryRun?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-webhook-'));
  const path = join(dir, 'bridge.db');
  const db = openDatabase(path);
  const queue = new QueueStore(db);
  const deployments = new DeploymentStore(db);
  const sources = new SourceStore(db);
  const metrics = createMetrics();
  const flags = { shuttingDown: false, enqueued: 0, readiness: { ready: true, reasons: [] } as Readiness };
  const app = await buildApp({
    webhookKey: opts.key ?? KEY,
    queue,
    deployments,
    sources,
    metrics,
    log: pino({ level: 'silent' }),
    now: () => NOW,
    onEnqueued: () => {
      flags.enqueued++;
    },
    isShuttingDown: () => flags.shuttingDown,
    readiness: () => flags.readiness,
    activeReconciles: () => 0,
    ...(opts.stateToken ? { stateToken: opts.stateToken } : {}),
    ...(opts.watchNamespaces ? { watchNamespaces: opts.watchNamespaces } : {}),
    ...(opts.dryRun !== undefined ? { dryRun: opts.dryRun } : {}),
  });
  t.teardown(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** Reads the queue through a second connection: what a restarted process would find. */
  const durableQueue = (): QueueRow[] => {
    const other = new Database(path, { fileMustExist: true });
    try {
      return other.prepare('SELECT kind, namespace, name, state FROM queue ORDER BY kind, namespace, name').all() as QueueRow[];
    } finally {
      other.close();
    }
  };
  const post = (body: Buffer | string, headers: Record<string, string> = {}, remoteAddress = '10.0.0.1') =>
    app.inject({
      method: 'POST',
      url: '/webhook',
      payload: body,
      remoteAddress,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const signed = (body: Buffer | string, alg = 'sha256') => post(body, { 'x-signature': signBody(KEY, body, alg) });
  return { app, path, queue, deployments, sources, metrics, flags, durableQueue, post, signed };
}

t.test('a real Kustomization event is queued durably before the 202', async (t) => {
  const s = await setup(t);
  t.equal(s.durableQueue().length, 0);
  const res = await s.signed(KUSTOMIZATION);
  t.equal(res.statusCode, 202);
  t.same(res.json(), { status: 'queued' });
  t.same(
    s.durableQueue(),
    [{ kind: 'Kustomization', namespace: 'flux-system', name: 'my-app-kustomization', state: 'pending' }],
    'a second connection sees the row as soon as inject resolves',
  );
  t.equal(s.flags.enqueued, 1, 'the worker is woken once');
});

t.test('ten identical events coalesce into one queue row', async (t) => {
  const s = await setup(t);
  for (let i = 0; i < 10; i++) t.equal((await s.signed(KUSTOMIZATION)).statusCode, 202);
  t.equal(s.durableQueue().length, 1);
  t.equal(s.flags.enqueued, 10, 'onEnqueued once per accepted event');
  t.match((await s.app.inject('/metrics')).body, /gdb_events_total\{kind="Kustomization",result="accepted"\} 10\b/);
});

t.test('a HelmRelease event is queued', async (t) => {
  const s = await setup(t);
  const res = await s.signed(HELMRELEASE);
  t.equal(res.statusCode, 202);
  t.same(res.json(), { status: 'queued' });
  t.same(s.durableQueue(), [{ kind: 'HelmRelease', namespace: 'flux-system', name: 'appnamehere', state: 'pending' }]);
  t.equal(s.flags.enqueued, 1);
});

t.test('a GitRepository event signed like Flux is accepted and ignored', async (t) => {
  const key = Buffer.from(vector.hmacKey, 'utf8');
  const s = await setup(t, { key });
  const body = fixture(vector.bodyFile);
  const header = signBody(key, body);
  t.equal(header, vector.expectedHeaders['X-Signature'], 'signBody gives the header notification-controller sends');
  const res = await s.post(body, { 'x-signature': header });
  t.equal(res.statusCode, 202);
  t.match(res.json(), { status: 'ignored', reason: /GitRepository/ });
  t.same(s.durableQueue(), [], 'nothing queued');
  t.equal(s.flags.enqueued, 0, 'worker not woken');
  t.match((await s.app.inject('/metrics')).body, /gdb_events_total\{kind="other",result="ignored"\} 1\b/);
});

t.test('signature problems answer 401 and queue nothing', async (t) => {
  const s = await setup(t);
  const missing = await s.post(KUSTOMIZATION);
  t.equal(missing.statusCode, 401);
  t.match(missing.json(), { error: /missing X-Signature/ });
  const wrongKey = await s.post(KUSTOMIZATION, { 'x-signature': signBody('another-key', KUSTOMIZATION) });
  t.equal(wrongKey.statusCode, 401);
  t.match(wrongKey.json(), { error: /does not match/ });
  const compact = JSON.stringify(JSON.parse(KUSTOMIZATION.toString('utf8')));
  t.not(compact, KUSTOMIZATION.toString('utf8'), 'same JSON value, different bytes');
  const otherBytes = await s.post(compact, { 'x-signature': signBody(KEY, KUSTOMIZATION) });
  t.equal(otherBytes.statusCode, 401, 'the HMAC covers the exact bytes, not the JSON value');
  t.same(s.durableQueue(), []);
  t.equal(s.flags.enqueued, 0);
  t.match((await s.app.inject('/metrics')).body, /gdb_events_total\{kind="unknown",result="bad_signature"\} 3\b/);
});

t.test('sha512 and sha384 signatures are accepted', async (t) => {
  const s = await setup(t);
  t.equal((await s.signed(KUSTOMIZATION, 'sha512')).statusCode, 202);
  t.equal((await s.signed(HELMRELEASE, 'sha384')).statusCode, 202);
  t.equal(s.durableQueue().length, 2);
});

t.test('bad bodies: not JSON 400, not a Flux event 400 naming the fields', async (t) => {
  const s = await setup(t);
  const notJson = await s.signed('{"involvedObject": ');
  t.equal(notJson.statusCode, 400);
  t.match(notJson.json(), { error: /not valid JSON/ });
  const partial = await s.signed(PARTIAL);
  t.equal(partial.statusCode, 400);
  const { error } = partial.json<{ error: string }>();
  for (const field of ['severity', 'reason', 'timestamp', 'message']) t.match(error, new RegExp(`\\b${field} must be a string`), field);
  t.notMatch(error, /involvedObject/, 'the fields that are there are not blamed');
  t.same(s.durableQueue(), []);
  t.equal(s.flags.enqueued, 0);
  const metrics = (await s.app.inject('/metrics')).body;
  t.match(metrics, /gdb_events_total\{kind="unknown",result="invalid_event"\} 1\b/);
  t.match(metrics, /gdb_events_total\{kind="unknown",result="bad_json"\} 1\b/);
});

t.test('a body over the limit answers 413', async (t) => {
  const s = await setup(t);
  const event = JSON.parse(KUSTOMIZATION.toString('utf8')) as { message: string };
  event.message = 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES);
  const res = await s.signed(JSON.stringify(event));
  t.equal(res.statusCode, 413);
  t.same(s.durableQueue(), []);
});

t.test('a body that is not application/json answers 415', async (t) => {
  const s = await setup(t);
  const res = await s.post(KUSTOMIZATION, { 'content-type': 'text/plain', 'x-signature': signBody(KEY, KUSTOMIZATION) });
  t.equal(res.statusCode, 415, 'refused by media type, not by a signature check over an empty body');
  t.same(s.durableQueue(), []);
});

t.test('more than WEBHOOK_RATE_PER_MINUTE requests from one address answer 429', async (t) => {
  const s = await setup(t);
  for (let i = 0; i < WEBHOOK_RATE_PER_MINUTE; i++) {
    const res = await s.post('{}', {}, '10.9.9.9');
    if (res.statusCode !== 401) return t.fail(`request ${i + 1} answered ${res.statusCode}`);
  }
  t.equal((await s.post('{}', {}, '10.9.9.9')).statusCode, 429, 'over the limit, even unsigned requests counted');
  t.equal((await s.signed(KUSTOMIZATION)).statusCode, 202, 'another address is not limited');
});

t.test('shutting down answers 503 and queues nothing', async (t) => {
  const s = await setup(t);
  s.flags.shuttingDown = true;
  const res = await s.signed(KUSTOMIZATION);
  t.equal(res.statusCode, 503);
  t.same(s.durableQueue(), []);
  t.equal(s.flags.enqueued, 0);
});

t.test('/healthz and /readyz', async (t) => {
  const s = await setup(t);
  const health = await s.app.inject('/healthz');
  t.equal(health.statusCode, 200);
  t.same(health.json(), { status: 'ok' });
  t.equal((await s.app.inject('/readyz')).statusCode, 200);
  s.flags.readiness = { ready: false, reasons: ['Kubernetes API unreachable: connect ECONNREFUSED'] };
  const notReady = await s.app.inject('/readyz');
  t.equal(notReady.statusCode, 503);
  t.same(notReady.json(), s.flags.readiness, 'the reasons are shown');
  s.flags.readiness = { ready: true, reasons: [] };
  t.equal((await s.app.inject('/readyz')).statusCode, 200, 'follows the dependency back');
});

t.test('/state says at the top whether this is a dry run', async (t) => {
  const dryRunOf = async (opts: { dryRun?: boolean }) =>
    (await (await setup(t, opts)).app.inject('/state')).json<Pick<StateBody, 'dryRun'>>();
  t.same(Object.keys(await dryRunOf({ dryRun: true }))[0], 'dryRun', 'the first field');
  t.equal((await dryRunOf({ dryRun: true })).dryRun, true, 'DRY_RUN=true');
  t.equal((await dryRunOf({ dryRun: false })).dryRun, false, 'DRY_RUN=false');
  t.equal((await dryRunOf({})).dryRun, false, 'not said: not a dry run');
});

t.test('/state shows deployments, skips, sources and the queue', async (t) => {
  const s = await setup(t);
  const empty = (await s.app.inject('/state')).json<unknown>();
  t.match(empty, { deployments: [], skipped: [], fluxObjects: [], queue: { pending: 0, active: 0, running: 0, items: [] } });

  t.equal((await s.signed(KUSTOMIZATION)).statusCode, 202);
  const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'my-app-kustomization' };
  const workload = { kind: 'Deployment', namespace: 'my-app', name: 'my-app' };
  s.sources.record({
    ...source,
    phase: 'in_progress',
    reason: 'Progressing',
    message: 'applying',
    revision: 'main@sha1:07a684d',
    lastSeen: NOW,
  });
  s.sources.replaceSkips(source, [{ source, workload, container: 'sidecar', code: 'no_repository', reason: 'image has no label' }], NOW);
  s.deployments.insertProvisional(
    {
      forge: 'github',
      owner: 'acme',
      repo: 'my-app',
      environment: 'staging',
      sha: '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e',
      deploymentName: 'my-app',
    },
    { source, workload, container: 'app', image: 'ghcr.io/acme/my-app:1.0.0' },
    NOW,
  );

  const res = await s.app.inject('/state');
  t.equal(res.statusCode, 200);
  const state = res.json<Pick<StateBody, 'deployments' | 'skipped' | 'fluxObjects' | 'queue'>>();
  t.match(state.deployments, [
    {
      owner: 'acme',
      repo: 'my-app',
      environment: 'staging',
      deploymentId: null,
      state: 'provisional',
      workload: 'Deployment/my-app/my-app',
      fluxObject: 'Kustomization/flux-system/my-app-kustomization',
      container: 'app',
    },
  ]);
  t.same(state.skipped, [
    {
      fluxObject: 'Kustomization/flux-system/my-app-kustomization',
      workload: 'Deployment/my-app/my-app',
      container: 'sidecar',
      code: 'no_repository',
      reason: 'image has no label',
      since: new Date(NOW).toISOString(),
    },
  ]);
  t.match(state.fluxObjects, [{ ...source, phase: 'in_progress', lastSeen: new Date(NOW).toISOString() }]);
  t.match(state.queue, { pending: 1, active: 0, running: 0 });
  t.match(state.queue.items, [{ ...source, state: 'pending', attempts: 0, notBefore: new Date(NOW).toISOString() }]);
});

t.test('/state filters by repository and environment, and STATE_TOKEN guards it', async (t) => {
  const s = await setup(t, { stateToken: 's3cret' });
  const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'apps' };
  const workload = { kind: 'Deployment', namespace: 'apps', name: 'web' };
  for (const [repo, environment] of [
    ['web', 'staging'],
    ['web', 'production'],
    ['api', 'staging'],
  ] as const) {
    s.deployments.insertProvisional(
      { forge: 'github', owner: 'Acme', repo, environment, sha: 'a'.repeat(40), deploymentName: repo },
      { source, workload, container: 'app', image: 'x' },
      NOW,
    );
  }
  t.equal((await s.app.inject({ url: '/state' })).statusCode, 401, 'no token');
  t.equal((await s.app.inject({ url: '/state', headers: { authorization: 'Bearer wrong' } })).statusCode, 401, 'wrong token');
  const get = async (query: string) => {
    const res = await s.app.inject({ url: `/state${query}`, headers: { authorization: 'Bearer s3cret' } });
    t.equal(res.statusCode, 200);
    return res
      .json<Pick<StateBody, 'deployments'>>()
      .deployments.map((d) => `${d.repo}:${d.environment}`)
      .sort();
  };
  t.same(await get(''), ['api:staging', 'web:production', 'web:staging']);
  t.same(await get('?repository=acme/web'), ['web:production', 'web:staging'], 'owner/repo, case-insensitive');
  t.same(await get('?repository=acme/web&environment=staging'), ['web:staging']);
  t.same(await get('?environment=production'), ['web:production']);
});

t.test('events for namespaces outside WATCH_NAMESPACES are accepted and ignored', async (t) => {
  const s = await setup(t, { watchNamespaces: ['apps'] });
  const res = await s.signed(fixture('kustomization-progressing-changeset.info.captured.json'));
  t.equal(res.statusCode, 202);
  t.match(res.json(), { status: 'ignored', reason: /flux-system is not in WATCH_NAMESPACES/ });
  t.same(s.durableQueue(), []);
});
