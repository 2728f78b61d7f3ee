import t from 'tap';
import { pino } from 'pino';
import { createGitHubSide } from '../../../src/forges/github/github-client.js';
import { createMetrics } from '../../../src/common/metrics.js';
import { InstallationStore } from '../../../src/forges/github/installation-store.js';
import { TOKEN, requestLog, sha, startRig, target } from './rig.js';

t.test('a token on GitHub Enterprise Server: every call under /api/v3, the check included', async (t) => {
  const rig = await startRig(t, { sim: { pathPrefix: '/api/v3' } });
  t.match(rig.sim.url, /\/api\/v3$/);
  await rig.side.monitor.checkNow();
  t.equal(rig.side.health.credentialState, 'ok');
  const a = await rig.attempt(target(sha('ghes-1')), 'in_progress');
  t.ok('ok' in a);
  t.same(requestLog(rig.sim), ['rate_limit 200', 'list 200', 'create 201', 'status 201']);
  t.same(rig.trail(), [['in_progress']]);
  t.same(
    rig.sim.requests.map((r) => r.credential),
    ['token', 'token', 'token', 'token'],
  );
  t.same(rig.sim.violations, []);
});

t.test('GITHUB_API_URL without the /api/v3 a GHES server needs: the check reports the 404, not bad credentials', async (t) => {
  const rig = await startRig(t, { sim: { pathPrefix: '/api/v3' } });
  const side = createGitHubSide({
    auth: { kind: 'token', token: TOKEN },
    baseUrl: rig.sim.url.replace(/\/api\/v3$/, ''),
    userAgent: 'gdb-test',
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
    installations: new InstallationStore(rig.db),
    spaceWrites: false,
  });
  t.teardown(() => side.monitor.stop());
  await side.monitor.checkNow();
  t.equal(side.health.credentialState, 'unreachable', 'not rejected: readiness stays up, the reason is shown');
  t.match(
    side.health.snapshot().credentials.reason,
    /could not check the GitHub credentials: check GITHUB_TOKEN \(GET \/rate_limit\): 404 Not Found/,
  );
});
