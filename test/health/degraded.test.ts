import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import t from 'tap';
import { degradedDependencies } from '../../src/health/degraded.js';
import { ForgeHealth } from '../../src/forges/forge-health.js';
import { GITHUB_BUDGETS } from '../../src/forges/github/rate-limit.js';
import { createDeploymentsPort, createOctokit, staticToken } from '../../src/forges/github/octokit-factory.js';
import { withHealth } from '../../src/health/kube-health.js';
import type { KubeReader } from '../../src/kube/kube-types.js';
import { createMetrics } from '../../src/common/metrics.js';

t.test('each failing dependency is named with its last error; nothing when all answer', (t) => {
  t.same(degradedDependencies({ kube: null, forges: [], skips: [] }), []);
  t.same(
    degradedDependencies({
      kube: 'Kubernetes API: GET kustomizations flux-system/web failed: connect ECONNREFUSED 127.0.0.1:6443',
      forges: ['GitHub failing since 2025-01-01T00:00:00.000Z: GET /repos/{owner}/{repo}/deployments: timed out'],
      skips: [
        { code: 'registry_unavailable', reason: 'ghcr.io is unreachable (ECONNREFUSED)' },
        { code: 'registry_unavailable', reason: 'ghcr.io is unreachable (ECONNREFUSED)' },
        { code: 'registry_timeout', reason: 'quay.io did not answer within 10000 ms' },
        { code: 'registry_denied', reason: 'denied: not an outage' },
        { code: 'no_repository', reason: 'no label' },
      ],
    }),
    [
      'Kubernetes API failing: GET kustomizations flux-system/web failed: connect ECONNREFUSED 127.0.0.1:6443',
      'GitHub failing since 2025-01-01T00:00:00.000Z: GET /repos/{owner}/{repo}/deployments: timed out',
      'registry failing for 3 workload container(s): ghcr.io is unreachable (ECONNREFUSED); quay.io did not answer within 10000 ms',
    ],
  );
  t.end();
});

t.test('registry reasons beyond three are counted, not listed', (t) => {
  const skips = ['a', 'b', 'c', 'd', 'e'].map((h) => ({ code: 'registry_timeout', reason: `${h}.example did not answer` }));
  t.same(degradedDependencies({ kube: null, forges: [], skips }), [
    'registry failing for 5 workload container(s): a.example did not answer; b.example did not answer; c.example did not answer (+2 more)',
  ]);
  t.end();
});

t.test('GitHub: a failure is shown from its first occurrence until a request or credential check succeeds', (t) => {
  const clock = { now: Date.parse('2025-01-01T00:00:00Z') };
  const health = new ForgeHealth({ auth: 'token', forge: 'GitHub', budgets: GITHUB_BUDGETS, now: () => clock.now });
  t.equal(health.outage(), undefined);
  health.unreachable('GET /x: network error: connect ECONNREFUSED');
  clock.now += 5_000;
  health.unreachable('GET /x: timed out');
  t.equal(health.outage(), 'GitHub failing since 2025-01-01T00:00:00.000Z: GET /x: timed out', 'the latest reason, the first time');
  t.equal(health.readinessProblem(), undefined, 'an outage alone does not make the bridge unready');
  health.succeeded();
  t.equal(health.outage(), undefined);
  health.unreachable('GET /rate_limit: 502 Bad Gateway');
  t.match(health.outage(), /^GitHub failing since 2025-01-01T00:00:05.000Z: GET \/rate_limit: 502/);
  health.credentialsOk();
  t.equal(health.outage(), undefined, 'a passing credential check is an answer too');
  t.end();
});

t.test('GitHub refusing, then hanging: the errors name the cause, the health shows it until an answer', async (t) => {
  // A port that accepts and never answers, and one that refuses (closed after listening).
  const held = new Set<Socket>();
  const hang = createServer((c) => {
    held.add(c);
    c.resume();
  });
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const c of held) c.destroy();
    hang.close();
  });
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const refusedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));

  const health = new ForgeHealth({ auth: 'token', forge: 'GitHub', budgets: GITHUB_BUDGETS, now: Date.now });
  // A refusal is immediate (a generous timeout for a busy machine); the hang must end by the timeout.
  const port = (baseUrl: string, timeoutMs: number) =>
    createDeploymentsPort(
      createOctokit({
        credentials: staticToken('ghp_test'),
        baseUrl,
        userAgent: 'gdb-test',
        metrics: createMetrics(),
        log: pino({ level: 'silent' }),
        health,
        scope: 'token',
        spaceWrites: false,
      }),
      timeoutMs,
    );
  const repo = { owner: 'acme', repo: 'shop' };

  const refused = await port(`http://127.0.0.1:${refusedPort}`, 20_000)
    .listDeployments(repo, { sha: 'abc1234', environment: 'staging' })
    .catch((e: unknown) => e);
  t.match(refused, {
    name: 'GitHubCallError',
    status: undefined,
    message: /^list deployments of acme\/shop: network error: connect ECONNREFUSED 127\.0\.0\.1:\d+/,
  });
  t.match(health.outage(), /^GitHub failing since .*: GET \/repos\/\{owner\}\/\{repo\}\/deployments: network error: connect ECONNREFUSED/);

  const started = Date.now();
  const hung = await port(`http://127.0.0.1:${(hang.address() as AddressInfo).port}`, 3_000)
    .listDeployments(repo, { sha: 'abc1234', environment: 'staging' })
    .catch((e: unknown) => e);
  t.match(hung, { name: 'GitHubCallError', message: 'list deployments of acme/shop: timed out' });
  t.ok(Date.now() - started < 15_000, 'the request timeout ended the hang');
  t.ok(held.size > 0, 'the request reached the hanging port');
  t.match(health.outage(), /: timed out$/);
});

t.test('Kubernetes: a request that hung through the outage and fails after a later answer does not mark the API failing', async (t) => {
  const clock = { now: 1_000 };
  const pending: Array<{ resolve: (v: null) => void; reject: (e: Error) => void }> = [];
  const held = () =>
    new Promise<null>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  const inner: KubeReader = {
    getFluxObject: held,
    listFluxObjects: () => Promise.resolve([]),
    getWorkload: () => Promise.resolve(null),
    listWorkloads: () => Promise.resolve([]),
    getRoutingObject: () => Promise.resolve(null),
    listRoutingObjects: () => Promise.resolve([]),
    getNamespace: () => Promise.resolve(null),
    getSecret: () => Promise.resolve(null),
    getServiceAccountPullSecrets: () => Promise.resolve(null),
    listPods: () => Promise.resolve([]),
  };
  const kube = withHealth(inner, () => clock.now);
  const ref = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'web' };

  const first = kube.reader.getFluxObject(ref).catch(() => 'failed');
  pending[0]!.reject(new Error('Kubernetes API: GET kustomizations flux-system/web failed: connect ECONNREFUSED'));
  t.equal(await first, 'failed');
  t.same(kube.health(), { lastOk: null, lastError: 'Kubernetes API: GET kustomizations flux-system/web failed: connect ECONNREFUSED' });

  const hung = kube.reader.getFluxObject(ref).catch(() => 'failed'); // sent at 1000, during the outage
  clock.now = 2_000;
  await kube.reader.listFluxObjects('Kustomization', []); // the API is back
  t.same(kube.health(), { lastOk: 2_000, lastError: null });
  clock.now = 11_000;
  pending[1]!.reject(new Error('Kubernetes API: GET kustomizations flux-system/web timed out after 10000 ms'));
  t.equal(await hung, 'failed');
  t.same(kube.health(), { lastOk: 2_000, lastError: null }, 'the late timeout of an old request is not a new failure');

  const fresh = kube.reader.getFluxObject(ref).catch(() => 'failed'); // sent after the answer
  pending[2]!.reject(new Error('Kubernetes API: GET kustomizations flux-system/web timed out after 10000 ms'));
  t.equal(await fresh, 'failed');
  t.match(kube.health(), { lastOk: 2_000, lastError: /timed out/ }, 'a request sent after the last answer that fails counts');
});
