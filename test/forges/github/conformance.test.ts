/**
 * GitHub against the forge conformance suite (test/forges/conformance.ts), on the GitHub simulator: with a
 * token, and as a GitHub App (JWT, installation lookup, installation tokens) installed on acme/shop only.
 */
import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import type { GitHubAuth } from '../../../src/forges/github/github-client.js';
import { githubForge, type GitHubReporting, type GitHubSettings } from '../../../src/forges/github/github-forge.js';
import { faults, startGitHubSimulator, type GitHubSimulatorOptions } from '../../harness/github-sim.js';
import { forgeConformance } from '../conformance.js';
import { OWNER, REPO, SHA, type ConformanceDriver } from '../conformance-rig.js';
import { GITHUB_LIMITS } from '../github-limits.js';

const TOKEN = 'ghs_conformance';
const APP_ID = 4242;
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
/** GitHub's status words in neutral words: `inactive` ends a deployment. */
const neutral = (state: string): string => ({ inactive: 'gone', queued: 'pending' })[state] ?? state;

function githubDriver(auth: GitHubAuth, sim: GitHubSimulatorOptions): ConformanceDriver<GitHubSettings, GitHubReporting> {
  return {
    driver: githubForge,
    async start(o = {}) {
      const s = await startGitHubSimulator({ ...sim, repos: [`${OWNER}/${REPO}`], ...o });
      return {
        sim: s,
        origin: new URL(s.url).origin,
        settings: {
          githubHost: 'github.com',
          githubAuth: auth,
          githubApiUrl: s.url,
          githubWriteIntervalMs: 0,
          githubWriteBudget: GITHUB_LIMITS,
        },
        // A deployment or a status; not an installation token.
        asksToWrite: (r) => r.method === 'POST' && r.path.startsWith('/repos/'),
        wordOf: (w) => (w.path.endsWith('/statuses') ? `status ${neutral((w.body as { state: string }).state)}` : 'create'),
        shown: () =>
          s.deployments(OWNER, REPO).map((d) => `${d.environment} ${d.sha.slice(0, 7)} ${neutral(d.statuses.at(-1)?.state ?? 'pending')}`),
        pullRequest: (n) => s.pullRequest(OWNER, REPO, n, { head: SHA }),
        comments: (n) => s.comments(OWNER, REPO, n).map((c) => c.body),
      };
    },
    rateLimited: (seconds) => faults.secondaryRateLimit(seconds, 429),
    // A deployment, then its statuses; a workload gone makes it `inactive`, in any environment.
    expected: {
      rollout: ['create', 'status in_progress', 'status success'],
      retire: ['status gone'],
      previewRollout: ['create', 'status in_progress', 'status success'],
      previewRetire: ['status gone'],
    },
  };
}

/** Each auth as its own subtest of the suite. */
const under = (name: string, driver: ConformanceDriver<GitHubSettings, GitHubReporting>) =>
  t.test(name, (t) => {
    forgeConformance(t, driver);
    t.end();
  });

under('with a token', githubDriver({ kind: 'token', token: TOKEN }, { tokens: [TOKEN] }));
under(
  'as a GitHub App',
  githubDriver(
    { kind: 'app', appId: APP_ID, privateKey: PEM },
    {
      app: {
        id: APP_ID,
        publicKey: keys.publicKey,
        // The App's permissions for deployments, commit times (contents) and pull request comments.
        permissions: { deployments: 'write', contents: 'read', metadata: 'read', pull_requests: 'write' },
        installations: [{ id: 501, account: OWNER, repositories: [REPO] }],
      },
    },
  ),
);
