import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { ForgeHealth } from '../../../src/forges/forge-health.js';
import { GITHUB_BUDGETS } from '../../../src/forges/github/rate-limit.js';
import { createOctokit, staticToken } from '../../../src/forges/github/octokit-factory.js';
import { DEFAULT_WRITE_INTERVAL_MS, WriteSpacing } from '../../../src/forges/github/write-spacing.js';
import { createMetrics } from '../../../src/common/metrics.js';

const MINIMAL = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', GITHUB_TOKEN: 'ghp_test', CLUSTER_NAME: 'prod-eu-1' };

t.test('GITHUB_WRITE_INTERVAL: default 1 s, 0 allowed, at most 5 s', (t) => {
  t.equal(loadConfig(MINIMAL).githubWriteIntervalMs, DEFAULT_WRITE_INTERVAL_MS);
  const rows: Array<[string, number]> = [
    ['0s', 0],
    ['0', 0],
    ['0ms', 0],
    ['250ms', 250],
    ['1s', 1_000],
    [' 5s ', 5_000],
    ['1.5', 1_500],
  ];
  for (const [text, want] of rows) t.equal(loadConfig({ ...MINIMAL, GITHUB_WRITE_INTERVAL: text }).githubWriteIntervalMs, want, text);
  for (const bad of ['6s', '1m', '-1s', 'abc', '1 s']) {
    let problems: string[] = [];
    try {
      loadConfig({ ...MINIMAL, GITHUB_WRITE_INTERVAL: bad });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    t.same(problems, [`GITHUB_WRITE_INTERVAL="${bad.trim()}" must be a duration from 0s to 5s, such as 1s or 250ms`], bad);
  }
  t.end();
});

t.test("GITHUB_WRITE_BUDGET: GitHub's secondary limits by default, any windows for GHES, a clear problem otherwise", (t) => {
  t.same(loadConfig(MINIMAL).githubWriteBudget, [
    { count: 80, ms: 60_000 },
    { count: 500, ms: 3_600_000 },
  ]);
  t.same(loadConfig({ ...MINIMAL, GITHUB_WRITE_BUDGET: '1000/1h' }).githubWriteBudget, [{ count: 1000, ms: 3_600_000 }]);
  let problems: string[] = [];
  try {
    loadConfig({ ...MINIMAL, GITHUB_WRITE_BUDGET: '80/1m,lots' });
  } catch (err) {
    problems = (err as ConfigError).problems;
  }
  t.match(problems, [/^GITHUB_WRITE_BUDGET="80\/1m,lots" has "lots": each window must be <count>\/<duration>/]);
  t.end();
});

t.test('GITHUB_WRITE_BUDGET_SHARE: the windows this bridge keeps of a budget shared with other bridges', (t) => {
  t.same(loadConfig({ ...MINIMAL, GITHUB_WRITE_BUDGET_SHARE: '1/5' }).githubWriteBudget, [
    { count: 16, ms: 60_000 },
    { count: 100, ms: 3_600_000 },
  ]);
  t.same(loadConfig({ ...MINIMAL, GITHUB_WRITE_BUDGET: '1000/1h', GITHUB_WRITE_BUDGET_SHARE: '25%' }).githubWriteBudget, [
    { count: 250, ms: 3_600_000 },
  ]);
  let problems: string[] = [];
  try {
    loadConfig({ ...MINIMAL, GITHUB_WRITE_BUDGET: '80/1m,lots', GITHUB_WRITE_BUDGET_SHARE: '5' });
  } catch (err) {
    problems = (err as ConfigError).problems;
  }
  t.match(problems, [
    /^GITHUB_WRITE_BUDGET="80\/1m,lots" has "lots"/,
    /^GITHUB_WRITE_BUDGET_SHARE="5" must be a share above 0 and at most 1/,
  ]);
  t.end();
});

t.test('WriteSpacing releases writes intervalMs apart, in arrival order; 0 never waits', async (t) => {
  let clock = 10_000;
  const slept: number[] = [];
  const sleep = (ms: number) => {
    slept.push(ms);
    clock += ms;
    return Promise.resolve();
  };
  const spacing = new WriteSpacing(1_000, () => clock, sleep);
  const order: number[] = [];
  await Promise.all([1, 2, 3].map((n) => spacing.key().schedule({}, () => order.push(n))));
  t.same(slept, [1_000, 1_000], 'the first goes at once, each next one waits a full interval after the one before');
  t.same(order, [1, 2, 3]);
  clock += 400;
  await spacing.schedule({}, () => undefined);
  t.same(slept, [1_000, 1_000, 600], 'a write soon after waits out the rest of the interval');
  clock += 5_000;
  await spacing.schedule({}, () => undefined);
  t.same(slept, [1_000, 1_000, 600], 'after a quiet spell the next write goes at once');

  const none = new WriteSpacing(0, () => clock, sleep);
  await Promise.all([1, 2, 3].map(() => none.schedule({}, () => undefined)));
  t.same(slept, [1_000, 1_000, 600], 'interval 0: no waits');
});

t.test('the octokit client paces writes (not reads) through the given WriteSpacing', async (t) => {
  const arrivals: Array<{ method: string; at: number }> = [];
  const server = createServer((req, res) => {
    arrivals.push({ method: req.method ?? '', at: Date.now() });
    req.resume();
    req.on('end', () => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"id":1}' : '[]');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  for (const intervalMs of [300, 0]) {
    arrivals.length = 0;
    let scheduled = 0;
    const spacing = new WriteSpacing(intervalMs);
    const schedule = spacing.schedule.bind(spacing);
    const released: number[] = [];
    spacing.schedule = (options, fn) => {
      scheduled++;
      return schedule(options, () => {
        released.push(Date.now());
        return fn();
      });
    };
    const octokit = createOctokit({
      credentials: staticToken('ghp_test'),
      baseUrl: url,
      userAgent: 'gdb-test',
      metrics: createMetrics(),
      log: pino({ level: 'silent' }),
      health: new ForgeHealth({ auth: 'token', forge: 'GitHub', budgets: GITHUB_BUDGETS, now: Date.now }),
      scope: 'token',
      writeSpacing: spacing,
    });
    const post = () =>
      octokit.request('POST /repos/{owner}/{repo}/deployments/{id}/statuses', { owner: 'acme', repo: 'shop', id: 1, state: 'success' });
    await Promise.all([post(), post(), post(), octokit.request('GET /repos/{owner}/{repo}/deployments', { owner: 'acme', repo: 'shop' })]);
    t.equal(scheduled, 3, `interval ${intervalMs}: every write, and only writes, went through the spacing`);
    t.equal(arrivals.filter((a) => a.method === 'POST').length, 3);
    // Spacing is between releases (as the throttler's own group does); arrivals add connection jitter.
    for (let i = 1; i < released.length && intervalMs > 0; i++) {
      t.ok(
        released[i]! - released[i - 1]! >= intervalMs - 2,
        `write ${i + 1} left ≥ ${intervalMs} ms after the one before (${released[i]! - released[i - 1]!} ms)`,
      );
    }
  }
});
