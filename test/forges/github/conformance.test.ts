/** GitHub against the forge conformance suite (test/forges/conformance.ts), on the GitHub simulator with a token. */
import t from 'tap';
import { githubForge, type GitHubReporting, type GitHubSettings } from '../../../src/forges/github/github-forge.js';
import { faults, startGitHubSimulator } from '../../harness/github-sim.js';
import { forgeConformance } from '../conformance.js';
import { OWNER, REPO, type ConformanceDriver } from '../conformance-rig.js';

const TOKEN = 'ghs_conformance';
/** GitHub's status words in neutral words: `inactive` ends a deployment. */
const neutral = (state: string): string => ({ inactive: 'gone', queued: 'pending' })[state] ?? state;

export const githubDriver: ConformanceDriver<GitHubSettings, GitHubReporting> = {
  factory: githubForge,
  async start() {
    const sim = await startGitHubSimulator({ tokens: [TOKEN], repos: [`${OWNER}/${REPO}`] });
    return {
      sim,
      settings: { githubHost: 'github.com', githubAuth: { kind: 'token', token: TOKEN }, githubApiUrl: sim.url, githubWriteIntervalMs: 0 },
      wordOf: (w) => (w.path.endsWith('/statuses') ? `status ${neutral((w.body as { state: string }).state)}` : 'create'),
      shown: () =>
        sim.deployments(OWNER, REPO).map((d) => `${d.environment} ${d.sha.slice(0, 7)} ${neutral(d.statuses.at(-1)?.state ?? 'pending')}`),
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

forgeConformance(t, githubDriver);
