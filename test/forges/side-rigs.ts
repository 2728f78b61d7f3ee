/**
 * The real Forgejo and GitLab sides (client, gate, and the ports on them: statuses or deployments, comments, commit
 * times) against their simulators, which accept `token` as the bridge's.
 */
import type { Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../src/common/metrics.js';
import { createForgejoSide, type ForgejoSide } from '../../src/forges/forgejo/forgejo-side.js';
import { parseForgejoUrl, type ForgejoLocation } from '../../src/forges/forgejo/forgejo-url.js';
import { createGitLabSide, type GitLabSide } from '../../src/forges/gitlab/gitlab-side.js';
import { parseGitLabUrl, type GitLabLocation } from '../../src/forges/gitlab/gitlab-url.js';
import { startForgejoSimulator, type ForgejoSimulator, type ForgejoSimulatorOptions } from '../harness/forgejo-sim.js';
import { startGitLabSimulator, type GitLabSimulator, type GitLabSimulatorOptions } from '../harness/gitlab-sim.js';

/** What both sides are built with besides their location. */
const quiet = (token: string) => ({ token, userAgent: 'test', metrics: createMetrics(), log: pino({ level: 'silent' }), now: Date.now });

export async function forgejoSide(
  t: Test,
  token: string,
  options: ForgejoSimulatorOptions = {},
): Promise<{ sim: ForgejoSimulator; side: ForgejoSide }> {
  const sim = await startForgejoSimulator({ tokens: [token], ...options });
  t.teardown(() => sim.close());
  return { sim, side: createForgejoSide({ location: parseForgejoUrl(sim.url) as ForgejoLocation, ...quiet(token) }) };
}

export async function gitlabSide(
  t: Test,
  token: string,
  options: GitLabSimulatorOptions = {},
): Promise<{ sim: GitLabSimulator; side: GitLabSide }> {
  const sim = await startGitLabSimulator({ tokens: { [token]: 'deploy-bridge' }, ...options });
  t.teardown(() => sim.close());
  return { sim, side: createGitLabSide({ location: parseGitLabUrl(sim.url) as GitLabLocation, ...quiet(token) }) };
}
