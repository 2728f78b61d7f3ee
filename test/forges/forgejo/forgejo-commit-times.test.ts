/** Forgejo's commit times through the real client and gate against the simulator's commit endpoint. */
import t from 'tap';
import { commitTimesCases } from '../commit-times-cases.js';
import { forgejoSide } from '../side-rigs.js';

t.test('the committer date in ms, null for a missing commit, a 503 throws', async (t) => {
  const { sim, side } = await forgejoSide(t, 'fj_commits_token');
  const reads = await commitTimesCases(t, { sim, commits: side.commits, owner: 'acme', repo: 'web' });
  t.match(reads[0]?.query, { stat: 'false', verification: 'false', files: 'false' }, 'the cheap read');
});
