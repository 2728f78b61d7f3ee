/** GitLab against the forge conformance suite (test/forges/conformance.ts), on the GitLab simulator. */
import t from 'tap';
import { gitlabForge, type GitLabSettings } from '../../../src/forges/gitlab/gitlab-forge.js';
import { parseGitLabUrl } from '../../../src/forges/gitlab/gitlab-url.js';
import { rateLimitFault, startGitLabSimulator } from '../../harness/gitlab-sim.js';
import { forgeConformance } from '../conformance.js';
import { LOCKED, OWNER, REPO, SHA, type ConformanceDriver } from '../conformance-rig.js';

const TOKEN = 'glpat-conformance';
const USER = 'deploy-bridge';
/** GitLab's deployment statuses in neutral words. */
const neutral = (status: string): string => ({ running: 'in_progress', failed: 'failure', canceled: 'gone' })[status] ?? status;

export const gitlabDriver: ConformanceDriver<GitLabSettings> = {
  driver: gitlabForge,
  async start(o = {}) {
    const sim = await startGitLabSimulator({
      ...o,
      tokens: { [TOKEN]: USER },
      projects: [{ path: `${OWNER}/${REPO}` }, { path: `${OWNER}/${LOCKED}`, reporters: [USER] }],
    });
    const url = parseGitLabUrl(sim.url);
    if ('problem' in url) throw new Error(url.problem);
    return {
      sim,
      origin: new URL(sim.url).origin,
      settings: { gitlabUrl: url, gitlabToken: { kind: 'inline', value: TOKEN } },
      asksToWrite: (r) => r.method === 'POST' || r.method === 'PUT',
      wordOf(w) {
        const status = (w.body as { status?: string } | undefined)?.status ?? '';
        if (w.path.endsWith('/stop')) return 'stop';
        if (/\/environments\/\d+$/.test(w.path)) return 'environment';
        return w.method === 'POST' ? `create ${neutral(status)}` : `status ${neutral(status)}`;
      },
      // A deployment in a stopped environment no longer shows as live.
      shown() {
        const p = sim.project(`${OWNER}/${REPO}`);
        return (p?.deployments ?? []).map((d) => {
          const env = p?.environments.find((e) => e.id === d.environmentId);
          return `${env?.name} ${d.sha.slice(0, 7)} ${env?.state === 'stopped' ? 'gone' : neutral(d.status)}`;
        });
      },
      pullRequest: (n) => sim.mergeRequest(`${OWNER}/${REPO}`, n, { sha: SHA }),
      comments: (n) => sim.notes(`${OWNER}/${REPO}`, n).map((c) => c.body),
    };
  },
  rateLimited: (seconds) => rateLimitFault({ retryAfterSeconds: seconds }),
  // Created running, its environment's URL set, then success; a finished deployment keeps its history
  // (no write), and a preview's environment is stopped once its last workload is gone.
  expected: {
    rollout: ['create in_progress', 'environment', 'status success'],
    retire: [],
    previewRollout: ['create in_progress', 'environment', 'status success'],
    previewRetire: ['stop'],
  },
};

forgeConformance(t, gitlabDriver);
