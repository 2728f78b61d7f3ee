/** The real GitLab side (client, gate, deployments, comments, commit times) against a GitLab simulator; `token` is the bridge's. */
import type { Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { createGitLabSide, type GitLabSide } from '../../../src/forges/gitlab/gitlab-side.js';
import { parseGitLabUrl, type GitLabLocation } from '../../../src/forges/gitlab/gitlab-url.js';
import { startGitLabSimulator, type GitLabSimulator, type GitLabSimulatorOptions } from '../../harness/gitlab-sim.js';

export async function gitlabSide(
  t: Test,
  token: string,
  options: GitLabSimulatorOptions = {},
): Promise<{ sim: GitLabSimulator; side: GitLabSide }> {
  const sim = await startGitLabSimulator({ tokens: { [token]: 'deploy-bridge' }, ...options });
  t.teardown(() => sim.close());
  const side = createGitLabSide({
    location: parseGitLabUrl(sim.url) as GitLabLocation,
    token,
    userAgent: 'test',
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
  });
  return { sim, side };
}
