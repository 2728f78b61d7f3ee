/** GitHub's commit times through the real clients (token and App) against the simulator's git commit endpoint. */
import t, { type Test } from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { createGitHubSide, type GitHubAuth } from '../../../src/forges/github/github-client.js';
import { openDatabase } from '../../../src/store/database.js';
import { InstallationStore } from '../../../src/forges/github/installation-store.js';
import { startGitHubSimulator, type GitHubSimulator } from '../../harness/github-sim.js';

const TOKEN = 'ghs_commits_token';
const SHA = 'a'.repeat(40);

async function side(t: Test, auth: 'token' | 'app') {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sim: GitHubSimulator = await startGitHubSimulator({
    tokens: [TOKEN],
    ...(auth === 'app' ? { app: { id: 31, publicKey: keys.publicKey, installations: [{ id: 8, account: 'acme' }] } } : {}),
  });
  const db = openDatabase(':memory:');
  t.teardown(async () => {
    db.close();
    await sim.close();
  });
  const a: GitHubAuth =
    auth === 'token'
      ? { kind: 'token', token: TOKEN }
      : { kind: 'app', appId: 31, privateKey: keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() };
  const s = createGitHubSide({
    auth: a,
    baseUrl: sim.url,
    userAgent: 'test',
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
    installations: new InstallationStore(db),
    writeIntervalMs: 0,
  });
  return { sim, commits: s.commits };
}

for (const auth of ['token', 'app'] as const) {
  t.test(`${auth}: the committer date in ms, null for a missing commit, a 503 throws`, async (t) => {
    const { sim, commits } = await side(t, auth);
    sim.commit('acme', 'web', SHA, { committedAt: '2026-11-30T10:00:00+02:00', authoredAt: '2026-11-29T00:00:00Z' });
    t.equal(await commits.committedAt('acme', 'web', SHA), Date.parse('2026-11-30T08:00:00Z'));
    sim.missingCommit('acme', 'web', 'b'.repeat(40));
    t.equal(await commits.committedAt('acme', 'web', 'b'.repeat(40)), null);
    sim.inject({ path: '/git/commits/', status: 503, times: Infinity });
    await t.rejects(commits.committedAt('acme', 'web', 'c'.repeat(40)), { name: 'GitHubCallError', status: 503 });
    t.equal(sim.commitReads().length, 3, 'one read per call');
    t.same(sim.writes(), []);
    t.same(sim.violations, [], 'every request and answer matched the OpenAPI slice');
  });
}
