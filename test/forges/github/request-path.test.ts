import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { ForgeHealth } from '../../../src/forges/forge-health.js';
import { GITHUB_BUDGETS } from '../../../src/forges/github/rate-limit.js';
import { createDeploymentsPort, createOctokit, staticToken } from '../../../src/forges/github/octokit-factory.js';
import { WriteSpacing } from '../../../src/forges/github/write-spacing.js';

t.test('a GitHub call waits on no 0 ms timer (octokit’s throttler, whose Bottleneck steps each await one, is off)', async (t) => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"id":1}' : '[]');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = createDeploymentsPort(
    createOctokit({
      credentials: staticToken('ghp_test'),
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      userAgent: 'gdb-test',
      metrics: createMetrics(),
      log: pino({ level: 'silent' }),
      health: new ForgeHealth({ auth: 'token', forge: 'GitHub', budgets: GITHUB_BUDGETS, now: Date.now }),
      scope: 'token',
      writeSpacing: new WriteSpacing(0),
    }),
  );
  const repo = { owner: 'acme', repo: 'web' };
  await port.listDeployments(repo, { sha: 'a'.repeat(40), environment: 'production' }); // warm: lazy set-up on first use

  const delays: Array<number | undefined> = [];
  const setTimeoutBefore = globalThis.setTimeout;
  const counting = (...args: Parameters<typeof setTimeout>) => {
    delays.push(args[1]);
    return setTimeoutBefore(...args);
  };
  globalThis.setTimeout = Object.assign(counting, setTimeoutBefore);
  try {
    await port.listDeployments(repo, { sha: 'a'.repeat(40), environment: 'production' });
    await port.createStatus(repo, 1, { state: 'success' });
  } finally {
    globalThis.setTimeout = setTimeoutBefore;
  }
  t.same(
    delays.filter((ms) => (ms ?? 0) <= 1),
    [],
    `no 0 ms timer for a read and a write (timers: ${JSON.stringify(delays)})`,
  );
});
