/** GitLab's commit times through the real client and gate against the simulator's commit endpoint. */
import t from 'tap';
import { commitTimesCases } from '../commit-times-cases.js';
import { gitlabSide } from '../side-rigs.js';

t.test('the committer date in ms, null for a missing commit, a 503 throws', async (t) => {
  const { sim, side } = await gitlabSide(t, 'glpat-commits');
  const reads = await commitTimesCases(t, { sim, commits: side.commits, owner: 'platform/team', repo: 'web' });
  t.same(reads[0]?.query, { stats: 'false' }, 'without stats');
  t.match(reads[0]?.path, /^\/projects\/platform%2Fteam%2Fweb\/repository\/commits\//, 'the project by its encoded path');
});
