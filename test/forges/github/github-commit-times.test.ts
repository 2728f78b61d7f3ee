/** GitHub's commit times through the real clients (token and App) against the simulator's git commit endpoint. */
import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import type { GitHubAuth } from '../../../src/forges/github/github-client.js';
import type { GitHubSimulatorOptions } from '../../harness/github-sim.js';
import { commitTimesCases } from '../commit-times-cases.js';
import { OWNER, REPO, startRig } from './rig.js';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const AUTH: Record<'token' | 'app', { sim?: GitHubSimulatorOptions; auth?: GitHubAuth }> = {
  token: {},
  app: {
    sim: { app: { id: 31, publicKey: keys.publicKey, installations: [{ id: 8, account: OWNER }] } },
    auth: { kind: 'app', appId: 31, privateKey: keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() },
  },
};

for (const auth of ['token', 'app'] as const) {
  t.test(`${auth}: the committer date in ms, null for a missing commit, a 503 throws`, async (t) => {
    const { sim, side } = await startRig(t, AUTH[auth]);
    const reads = await commitTimesCases(t, { sim, commits: side.commits, owner: OWNER, repo: REPO });
    t.same(
      reads.map((r) => r.query),
      [{}, {}, {}],
      'no query',
    );
    if (auth === 'app')
      t.match(sim.app?.issued, [{ permissions: { contents: 'read', metadata: 'read' } }], 'a token of its own for commits');
  });
}

t.test('an App installation not granted Contents read: a 403 naming the permission, never "no such commit"', async (t) => {
  const app = AUTH.app.sim?.app;
  if (app === undefined) throw new Error('the App rig is missing');
  const { side } = await startRig(t, { ...AUTH.app, sim: { app: { ...app, permissions: { deployments: 'write', metadata: 'read' } } } });
  await t.rejects(side.commits.committedAt(OWNER, REPO, 'a'.repeat(40)), { status: 403, message: /not granted Contents read/ });
});
