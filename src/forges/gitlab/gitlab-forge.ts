/**
 * GitLab as a forge: one deployment per (project, environment, commit, deployment name, cluster).
 * Builds its client, health and credential check (`createGitLabSide`), its publisher behind its
 * refusal guard, its dry run, and its parts of /state, /metrics and routing (by the host of
 * `GITLAB_URL`; project paths nest).
 */
import { secretValue, type RotatingSecret } from '../../common/rotating-secret.js';
import type { Forge, ForgeFactory } from '../forge.js';
import { explainCommit, laneOf, repoWebPath } from '../forge.js';
import { forgeGauges, statusCounter } from '../forge-metrics.js';
import { forgeHealthState } from '../forge-state.js';
import { placeOf } from '../forge-url.js';
import { GuardedPublisher } from '../refusal-guard.js';
import { TransientEnvironmentStore } from '../../store/transient-store.js';
import { gitlabDryRunPort } from './gitlab-dry-run.js';
import { GitLabPublisher, wireOf } from './gitlab-publisher.js';
import { gitlabRefusalOf, keepsProvisional } from './gitlab-refusal.js';
import { createGitLabSide } from './gitlab-side.js';
import type { GitLabLocation } from './gitlab-url.js';

/** What routing to GitLab needs (`explain` too). */
export interface GitLabReporting {
  /** Unset: GitLab is not configured. */
  gitlabUrl?: GitLabLocation | undefined;
}

/** The settings GitLab is built from (`GITLAB_*`, see gitlab-settings.ts). */
export interface GitLabSettings extends GitLabReporting {
  gitlabToken?: RotatingSecret | undefined;
  /** `GITLAB_AGENT_ID`: environments are linked to this agent, the namespace and the Flux object. */
  gitlabAgentId?: number | undefined;
}

export const gitlabForge: ForgeFactory<GitLabSettings, GitLabReporting> = {
  name: 'gitlab',
  reports: 'GitLab deployments',
  host: (s) =>
    s.gitlabUrl === undefined ? undefined : { forge: 'gitlab', ...placeOf(s.gitlabUrl.webUrl), setting: 'GITLAB_URL', nested: true },
  configuredIn: (env) => Boolean(env.GITLAB_URL?.trim()),
  explain: (_s, t) => ({ where: `GitLab ${explainCommit(t)} deployment to environment ${t.environment}`, urlField: 'external_url' }),
  build(s, d): Forge | undefined {
    if (s.gitlabUrl === undefined || s.gitlabToken === undefined) return undefined;
    const { deployments, refusals, log, now } = d;
    const side = createGitLabSide({
      location: s.gitlabUrl,
      token: secretValue(s.gitlabToken),
      userAgent: d.userAgent,
      metrics: d.metrics,
      log: log.child({ component: 'gitlab' }),
      now,
    });
    const port = d.dryRun ? gitlabDryRunPort(side.port, log) : side.port;
    const transients = new TransientEnvironmentStore(d.db);
    const onSent = statusCounter(d, 'gitlab');
    const plain = new GitLabPublisher({ port, deployments, refusals, transients, agentId: s.gitlabAgentId, log, now, onSent });
    const guarded = new GuardedPublisher({
      publisher: plain,
      refusals,
      deployments,
      classify: gitlabRefusalOf,
      keepsProvisional,
      forge: 'GitLab',
      log,
      now,
    });
    const health = side.health;
    const url = s.gitlabUrl.webUrl;
    return {
      name: 'gitlab',
      title: 'GitLab',
      health,
      ...laneOf(guarded, plain, (r) => ({ sent: r.sent, superseded: 0 })),
      comments: side.comments,
      commits: side.commits,
      start: () => side.monitor.start(),
      stop: () => side.monitor.stop(),
      state: () => ({ url, ...forgeHealthState(health, refusals, 'gitlab', now()) }),
      // A retired row says `gone`: its deployment was canceled if it was still running, else it keeps its status
      // on GitLab. Its link: the project's environments, filtered to the row's.
      describe: (row) => ({
        deploymentId: row.deploymentId,
        forgeState: row.state === null ? 'provisional' : row.state === 'gone' ? 'gone' : wireOf(row.state),
        url: `${url}/${repoWebPath(row)}/-/environments?search=${encodeURIComponent(row.environment)}`,
      }),
      scrape: forgeGauges(d.metrics, 'gitlab', health),
      summary: { url, ...(s.gitlabAgentId === undefined ? {} : { agentId: s.gitlabAgentId }) },
    };
  },
};
