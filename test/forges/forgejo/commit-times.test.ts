/** Forgejo's commit times through the real client and gate against the simulator's commit endpoint. */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { createForgejoSide } from '../../../src/forges/forgejo/forgejo-side.js';
import { parseForgejoUrl, type ForgejoLocation } from '../../../src/forges/forgejo/forgejo-url.js';
import { startForgejoSimulator } from '../../harness/forgejo-sim.js';

const TOKEN = 'fj_commits_token';
const SHA = 'a'.repeat(40);

async function side(t: Test) {
  const sim = await startForgejoSimulator({ tokens: [TOKEN] });
  t.teardown(() => sim.close());
  const s = createForgejoSide({
    location: parseForgejoUrl(sim.url) as ForgejoLocation,
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
  sim.commit('acme', 'web', SHA, { committedAt: '2026-11-30T10:00:00+02:00', authoredAt: '2026-11-29T00:00:00Z' });
  t.equal(await commits.committedAt('acme', 'web', SHA), Date.parse('2026-11-30T08:00:00Z'));
  sim.missingCommit('acme', 'web', 'b'.repeat(40));
  t.equal(await commits.committedAt('acme', 'web', 'b'.repeat(40)), null);
  sim.inject({ path: '/git/commits/', status: 503, times: Infinity });
  const failed = await commits.committedAt('acme', 'web', 'c'.repeat(40)).catch((err: unknown) => err);
  t.match(failed, { status: 503 }, String(failed));
  t.ok(failed instanceof Error, 'it throws, not null');
  t.equal(sim.commitReads().length, 3, 'one read per call');
  t.match(sim.commitReads()[0]!.query, { stat: 'false', verification: 'false', files: 'false' }, 'the cheap read');
  t.same(sim.writes(), []);
  t.same(sim.violations, [], 'every request and answer matched the swagger slice');
});
