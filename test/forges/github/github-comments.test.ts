/** GitHub's pull request comments through the real clients (token and App) against the simulator's comment endpoints. */
import t, { type Test } from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { CommentRefused } from '../../../src/forges/comments-port.js';
import { createGitHubSide, type GitHubAuth } from '../../../src/forges/github/github-client.js';
import { InstallationStore } from '../../../src/forges/github/installation-store.js';
import { startGitHubSimulator, type GitHubSimulator } from '../../harness/github-sim.js';
import { openDatabase } from '../../harness/database.js';

const TOKEN = 'ghs_comments_token';
const repo = { owner: 'acme', repo: 'web' };

async function side(t: Test, auth: 'token' | 'app') {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sim: GitHubSimulator = await startGitHubSimulator({
    tokens: [TOKEN],
    login: 'bridge-bot',
    ...(auth === 'app'
      ? {
          app: {
            id: 31,
            slug: 'preview-bridge',
            publicKey: keys.publicKey,
            permissions: { deployments: 'write', metadata: 'read', pull_requests: 'write' },
            installations: [{ id: 8, account: 'acme' }],
          },
        }
      : {}),
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
  return { sim, comments: s.comments };
}

for (const auth of ['token', 'app'] as const) {
  t.test(`${auth}: create, edit, and find its own among every page`, async (t) => {
    const { sim, comments } = await side(t, auth);
    sim.pullRequest('acme', 'web', 7);
    t.same(await comments.pullRequest(repo, 7), { open: true, locked: false });
    const id = await comments.create(repo, 7, '<!-- m -->\nfirst');
    t.equal(await comments.edit(repo, 7, id, '<!-- m -->\nsecond'), true);
    t.equal(sim.comments('acme', 'web', 7)[0]!.body, '<!-- m -->\nsecond');
    // 150 more of its own: the list needs two pages of 100.
    for (let i = 0; i < 150; i++) await comments.create(repo, 7, `note ${i}`);
    const own = await comments.listOwn(repo, 7);
    t.equal(own.length, 151, 'every page read');
    t.equal(own[0]!.id, id);
    t.equal(sim.commentWrites().length, 152, 'each create and edit is one write');
    t.same(sim.violations, [], 'every request and answer matched the OpenAPI slice');
  });
}

t.test("another user's comments, marker and all, are not the bridge's own", async (t) => {
  const { sim, comments } = await side(t, 'app');
  sim.pullRequest('acme', 'web', 3);
  // A person (the token's user) quotes the bridge's text; the App's list leaves it out.
  const res = await fetch(`${sim.url}/repos/acme/web/issues/3/comments`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ body: 'mine' }),
  });
  t.equal(res.status, 201);
  await comments.create(repo, 3, 'mine');
  t.equal(sim.comments('acme', 'web', 3).length, 2);
  t.same(
    (await comments.listOwn(repo, 3)).map((c) => c.id),
    [sim.comments('acme', 'web', 3)[1]!.id],
  );
  t.same(sim.violations, []);
});

t.test('refusals: missing pull request, an issue, locked for an App, a deleted comment', async (t) => {
  const { sim, comments } = await side(t, 'app');
  await t.rejects(comments.pullRequest(repo, 99), CommentRefused, 'a missing pull request is a refusal');
  await t.rejects(comments.create(repo, 99, 'x'), { name: 'CommentRefused', reason: /not found/ });
  sim.pullRequest('acme', 'web', 5, { locked: true });
  t.same(await comments.pullRequest(repo, 5), { open: true, locked: true });
  await t.rejects(comments.create(repo, 5, 'x'), { name: 'CommentRefused', reason: /locked/ });
  sim.pullRequest('acme', 'web', 6, { state: 'closed' });
  t.same(await comments.pullRequest(repo, 6), { open: false, locked: false });
  t.equal(await comments.edit(repo, 6, 123456, 'x'), false, 'a comment deleted by a person: edit says so');
  await t.rejects(comments.create(repo, 6, ''), { name: 'CommentRefused', reason: /refused/ }, 'a blank body is refused');
});

t.test('the open pull request whose head is a commit (PULL_REQUEST_LOOKUP)', async (t) => {
  const { sim, comments } = await side(t, 'token');
  const head = 'a'.repeat(40);
  sim.pullRequest('acme', 'web', 8, { head });
  sim.pullRequest('acme', 'web', 9, { head, state: 'closed' });
  t.equal(await comments.pullRequestOfCommit!(repo, head), 8, 'the open one');
  t.equal(await comments.pullRequestOfCommit!(repo, 'b'.repeat(40)), null);
  t.same(sim.violations, []);
});

t.test("the deployed commit must be on the pull request (GitHub's pull requests of the commit: one read)", async (t) => {
  const { sim, comments } = await side(t, 'token');
  const head = 'e'.repeat(40);
  sim.pullRequest('acme', 'web', 8, { head });
  sim.pullRequest('acme', 'web', 77, { head: 'f'.repeat(40) });
  t.equal(await comments.commitOnPullRequest(repo, 8, head), undefined);
  t.match(
    await comments.commitOnPullRequest(repo, 77, head),
    /commit eeeeeee is not on pull request #77 of acme\/web: GitHub names #8 with it/,
  );
  t.same(sim.violations, []);
});
