import t from 'tap';
import { findOwnDeployment } from '../../../src/forges/gitlab/gitlab-recovery.js';
import type { GitLabDeployment } from '../../../src/forges/gitlab/gitlab-types.js';

const SHA = 'a'.repeat(40);
const ME = 1001;
const dep = (id: number, o: { sha?: string; user?: number | null; env?: string } = {}): GitLabDeployment => ({
  id,
  iid: id,
  ref: 'main',
  sha: o.sha ?? SHA,
  status: 'running',
  user: o.user === null ? null : { id: o.user ?? ME, username: o.user === undefined ? 'deploy-bridge' : 'someone' },
  environment: { id: 1, name: o.env ?? 'staging/frontend' },
  created_at: '2026-01-01T00:00:00Z',
});
const key = { environment: 'staging/frontend', sha: SHA, userId: ME, claimed: new Set<number>() };

t.test('recovery finds the token user’s deployment of the commit in the environment, and nothing else', (t) => {
  const rows: [string, GitLabDeployment[], typeof key, unknown][] = [
    ['ours', [dep(3)], key, { found: dep(3) }],
    ['nothing listed', [], key, { none: true }],
    ['another user’s deployment of the same commit is never adopted', [dep(3, { user: 2002 })], key, { none: true }],
    ['a CI deployment without a user', [dep(3, { user: null })], key, { none: true }],
    ['another commit', [dep(3, { sha: 'b'.repeat(40) })], key, { none: true }],
    ['another environment (a sibling workload)', [dep(3, { env: 'staging/backend' })], key, { none: true }],
    ['the SHA compares case-insensitively', [dep(3, { sha: 'A'.repeat(40) })], key, { found: dep(3, { sha: 'A'.repeat(40) }) }],
    ['one another row holds is left out', [dep(3), dep(5)], { ...key, claimed: new Set([3]) }, { found: dep(5) }],
    ['two candidates are reported, newest first, not guessed', [dep(3), dep(5)], key, { ambiguous: [5, 3] }],
    ['listed twice (two status lists) is one', [dep(3), dep(3)], key, { found: dep(3) }],
  ];
  for (const [name, listed, k, want] of rows) t.same(findOwnDeployment(listed, k), want, name);
  t.end();
});
