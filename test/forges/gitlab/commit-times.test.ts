/** GitLab's commit times through the real client and gate against the simulator's commit endpoint. */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { createGitLabSide } from '../../../src/forges/gitlab/gitlab-side.js';
import { parseGitLabUrl, type GitLabLocation } from '../../../src/forges/gitlab/gitlab-url.js';
import { startGitLabSimulator } from '../../harness/gitlab-sim.js';

const TOKEN = 'glpat-commits';
const SHA = 'a'.repeat(40);

async function side(t: Test) {
  const sim = await startGitLabSimulator({ tokens: { [TOKEN]: 'deploy-bridge' } });
  t.teardown(() => sim.close());
  const s = createGitLabSide({
    location: parseGitLabUrl(sim.url) as GitLabLocation,
    token: TOKEN,
    userAgent: 'test',
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
  });
  return { sim, commits: s.commits };
}

t.test('the committer date in ms, null for a missing commit, a 503 throws', async (t) => {
  const { sim, commits } = await side(t);
  sim.commit('platform/team', 'web', SHA, { committedAt: '2026-11-30T10:00:00+02:00', authoredAt: '2026-11-29T00:00:00Z' });
  t.equal(await commits.committedAt('platform/team', 'web', SHA), Date.parse('2026-11-30T08:00:00Z'));
  sim.missingCommit('platform/team', 'web', 'b'.repeat(40));
  t.equal(await commits.committedAt('platform/team', 'web', 'b'.repeat(40)), null);
  sim.inject({ path: '/repository/commits/', status: 503, times: Infinity });
  const failed = await commits.committedAt('platform/team', 'web', 'c'.repeat(40)).catch((err: unknown) => err);
  t.match(failed, { status: 503 }, String(failed));
  t.ok(failed instanceof Error, 'it throws, not null');
  t.equal(sim.commitReads().length, 3, 'one read per call');
  t.same(sim.commitReads()[0]!.query, { stats: 'false' }, 'without stats');
  t.same(sim.writes(), []);
  t.same(sim.violations, [], 'every request and answer matched the OpenAPI slice');
});
