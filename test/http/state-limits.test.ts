/** `/state` against what a developer or a stranger can send it: a size cap, repeated query parameters, the token. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import t, { type Test } from 'tap';
import { createMetrics } from '../../src/common/metrics.js';
import { buildApp } from '../../src/http/http-app.js';
import { stateFilter } from '../../src/http/status-routes.js';
import { capState, MAX_STATE_BYTES, STATE_LISTS } from '../../src/http/state-cap.js';
import { STATUS_RATE_PER_MINUTE } from '../../src/common/request-rates.js';
import { stateSnapshot } from '../../src/http/state-snapshot.js';
import { commentsPage, type commentsState, MAX_STATE_COMMENTS } from '../../src/features/comments/comments-section.js';
import { commentSections } from '../../src/features/comments/comments-feature.js';
import { CommentStore } from '../../src/features/comments/comment-store.js';
import { loadConfig } from '../../src/config/load-config.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { IDLE_APP } from '../harness/idle-app.js';
import { openDatabase } from '../harness/database.js';

const NOW = Date.UTC(2026, 11, 2);

async function bridge(t: Test, stateToken?: string, statusRatePerMinute?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-state-'));
  const db = openDatabase(join(dir, 'bridge.db'));
  const sources = new SourceStore(db);
  const app = await buildApp({
    webhookKey: Buffer.from('k'),
    queue: new QueueStore(db),
    deployments: new DeploymentStore(db),
    sources,
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: () => NOW,
    ...IDLE_APP,
    ...(stateToken ? { stateToken } : {}),
    ...(statusRatePerMinute ? { statusRatePerMinute } : {}),
  });
  t.teardown(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { app, sources };
}

t.test('capState: a small answer as it is; a large one shortened, valid, saying what it left out', (t) => {
  const small = { deployments: [1, 2], skipped: [], queue: { items: [] } };
  t.equal(capState(small, 1000), small);
  const big = {
    deployments: Array.from({ length: 100 }, (_, i) => ({ i, pad: 'd'.repeat(100) })),
    skipped: ['s'],
    queue: { pending: 3, items: ['q'] },
  };
  const out = capState(big, 2000);
  t.ok(Buffer.byteLength(JSON.stringify(out)) <= 2000);
  const kept = (out.deployments as unknown[]).length;
  t.ok(kept > 0 && kept < 100, `kept ${kept} deployments, the first ones`);
  t.strictSame(out.truncated, { maxBytes: 2000, omitted: { deployments: 100 - kept } });
  t.strictSame(out.queue, big.queue, 'lists that fit are left whole');
  t.end();
});

t.test('capState: several lists, one nested (dora), halved largest first until the answer fits', (t) => {
  const body = {
    deployments: Array.from({ length: 100 }, (_, i) => ({ i, pad: 'd'.repeat(80) })),
    skipped: Array.from({ length: 7 }, (_, i) => ({ i, reason: 'r'.repeat(300) })),
    fluxObjects: [{ name: 'x' }],
    queue: { pending: 1, items: Array.from({ length: 30 }, (_, i) => ({ i })) },
    dora: {
      windowDays: 30,
      environments: Array.from({ length: 10_000 }, (_, i) => ({ repository: `acme/r-${i}`, deploymentsPerDay: 0.5 })),
    },
  };
  for (const [max, omitted] of [
    [100_000, { 'dora.environments': 8750 }],
    [5000, { 'dora.environments': 9961, deployments: 88, skipped: 4 }],
  ] as const) {
    const out = capState(body, max, [...STATE_LISTS, 'pullRequestComments', 'dora.environments']);
    const bytes = Buffer.byteLength(JSON.stringify(out));
    t.ok(bytes <= max, `${bytes} ≤ ${max}`);
    t.strictSame(out.truncated, { maxBytes: max, omitted }, `${max}: what was left out`);
    t.equal((out.dora as { windowDays: number }).windowDays, 30, 'the rest of dora kept');
  }
  t.end();
});

t.test('/state with 20 skip reasons of 200,000 characters (rows stored before values were bounded) stays under its cap', async (t) => {
  const { app, sources } = await bridge(t);
  for (let i = 0; i < 20; i++) {
    const source = { kind: 'Kustomization' as const, namespace: 'apps', name: `app-${i}` };
    const workload = { kind: 'Deployment', namespace: 'apps', name: `app-${i}` };
    sources.replaceSkips(
      source,
      [{ source, workload, container: 'app', code: 'bad_commit', reason: `commit "${'x'.repeat(200_000)}"` }],
      NOW,
    );
  }
  const res = await app.inject('/state');
  t.equal(res.statusCode, 200);
  t.ok(res.body.length <= MAX_STATE_BYTES, `${res.body.length} bytes`);
  const body = res.json<{ skipped: unknown[]; truncated?: { maxBytes: number; omitted: Record<string, number> } }>();
  t.ok(body.skipped.length > 0 && body.skipped.length < 20);
  t.equal(body.truncated?.maxBytes, MAX_STATE_BYTES);
  t.equal(body.truncated?.omitted.skipped, 20 - body.skipped.length);
});

t.test('/state?repository=a&repository=b answers 400 with a reason, not 500', async (t) => {
  const { app } = await bridge(t);
  const res = await app.inject('/state?repository=acme/a&repository=acme/b');
  t.equal(res.statusCode, 400);
  t.match(res.json(), { message: /querystring\/repository must be string/ });
  t.equal((await app.inject('/state?repository=acme/a&environment=staging')).statusCode, 200, 'one value each is fine');
});

t.test('stateFilter: each filter once, as given; a repeated or odd one is the reason for a 400', (t) => {
  const cases: Array<[unknown, ReturnType<typeof stateFilter>]> = [
    [undefined, {}],
    [{}, {}],
    [{ repository: 'acme/a' }, { repository: 'acme/a' }],
    [
      { repository: 'acme/a', environment: 'staging', other: ['x', 'y'] },
      { repository: 'acme/a', environment: 'staging' },
    ],
    [{ repository: '' }, { repository: '' }],
    [{ repository: ['acme/a', 'acme/b'] }, 'querystring/repository must be string'],
    [{ repository: 'acme/a', environment: ['a', 'b'] }, 'querystring/environment must be string'],
  ];
  for (const [query, want] of cases) t.same(stateFilter(query), want, JSON.stringify(query));
  t.end();
});

t.test('a route schema is refused when the app starts: none may load ajv', async (t) => {
  const { app } = await bridge(t);
  app.get('/with-schema', { schema: { querystring: { type: 'object' } } }, () => 'never');
  await t.rejects(
    async () => {
      await app.ready();
    },
    { message: /no route schema/ },
  );
});

t.test('STATE_TOKEN is compared as digests: a token of another length takes the same constant-time path', async (t) => {
  const crypto = await import('node:crypto');
  const compared: Array<[number, number]> = [];
  const { bearerMatches } = await t.mockImport<typeof import('../../src/http/bearer.js')>('../../src/http/bearer.js', {
    'node:crypto': {
      ...crypto,
      timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
        compared.push([a.byteLength, b.byteLength]);
        return crypto.timingSafeEqual(a, b);
      },
    },
  });
  t.notOk(bearerMatches('Bearer x', 'the-state-token'), 'a much shorter token');
  t.notOk(bearerMatches('Bearer the-state-tokeN', 'the-state-token'), 'same length, one character off');
  t.notOk(bearerMatches(undefined, 'the-state-token'), 'no header');
  t.ok(bearerMatches('bearer the-state-token', 'the-state-token'));
  t.strictSame(
    compared,
    Array.from({ length: 4 }, () => [32, 32]),
    'every check compares two 32-byte digests',
  );

  const { app } = await bridge(t, 'the-state-token');
  t.equal((await app.inject({ url: '/state', headers: { authorization: 'Bearer x' } })).statusCode, 401);
  t.equal((await app.inject({ url: '/state', headers: { authorization: 'Bearer the-state-token' } })).statusCode, 200);
});

t.test('/state and /readyz are rate-limited per client address, each with its own budget (issue 22, item 10)', async (t) => {
  t.equal(STATUS_RATE_PER_MINUTE, 300, 'the default: far above probes every few seconds');
  const { app } = await bridge(t, undefined, 5);
  const codes = async (url: string, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await app.inject({ url, remoteAddress: '10.0.0.7' })).statusCode);
    return out;
  };
  t.same(await codes('/state', 6), [200, 200, 200, 200, 200, 429], 'a loop of /state reads is cut off');
  t.same(await codes('/readyz', 6), [200, 200, 200, 200, 200, 429], '/readyz has its own budget');
  t.equal((await app.inject({ url: '/state', remoteAddress: '10.0.0.8' })).statusCode, 200, 'another address is not limited');
  t.equal((await app.inject({ url: '/healthz', remoteAddress: '10.0.0.7' })).statusCode, 200, 'liveness is never limited');
});

t.test('STATUS_RATE_PER_MINUTE: unset keeps the default; a whole number from 1 sets it; anything else is refused', (t) => {
  const minimal = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', GITHUB_TOKEN: 'ghp_test', CLUSTER_NAME: 'prod-eu-1' };
  t.notOk('statusRatePerMinute' in loadConfig(minimal), 'unset: absent, the route uses STATUS_RATE_PER_MINUTE');
  t.equal(loadConfig({ ...minimal, STATUS_RATE_PER_MINUTE: '1200' }).statusRatePerMinute, 1_200);
  for (const bad of ['0', '-5', '1.5', 'many'])
    t.throws(() => loadConfig({ ...minimal, STATUS_RATE_PER_MINUTE: bad }), /STATUS_RATE_PER_MINUTE/, bad);
  t.end();
});

t.test('the pull request comments of /state and the status page: a bounded list, newest first, the rest counted', (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const comments = new CommentStore(db);
  const row = { environment: 'pr', state: 'success' as const, sha: 'a'.repeat(40) };
  for (let pr = 1; pr <= MAX_STATE_COMMENTS + 50; pr++)
    comments.putRow(
      { forge: 'github', owner: 'acme', repo: 'web', pr, cluster: 'prod' },
      { ...row, deploymentName: `web-${pr}` },
      'annotation',
      NOW + pr,
    );
  const state = stateSnapshot({
    queue: new QueueStore(db),
    deployments: new DeploymentStore(db),
    sources: new SourceStore(db),
    metrics: createMetrics(),
    now: () => NOW,
    readiness: () => ({ ready: true, problems: [] }) as never,
    activeReconciles: () => 0,
    sections: [commentSections(comments)],
  }) as ReturnType<typeof stateSnapshot> & Partial<ReturnType<typeof commentsState>>;
  t.equal(state.pullRequestComments?.length, MAX_STATE_COMMENTS);
  t.equal(state.pullRequestComments?.[0]?.pullRequest, MAX_STATE_COMMENTS + 50, 'the most lately changed first');
  t.equal(state.pullRequestCommentsOmitted, 50);
  t.match(commentsPage(state, {}), /…and 50 more, not shown/);
  t.end();
});
