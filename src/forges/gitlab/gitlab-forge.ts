/**
 * GitLab as a forge: one deployment per (project, environment, commit, deployment name, cluster).
 * Its driver: its settings, routing (by the host of `GITLAB_URL`; project paths nest), its client, health and
 * credential check (`createGitLabSide`), its publisher, refusal classifier and dry run, and its words for a row.
 */
import type { RotatingSecret } from '../../common/rotating-secret.js';
import { explainCommit, repoWebPath } from '../forge.js';
import type { ForgeConnection, ForgeDriver } from '../forge-driver.js';
import { placedByUrl } from '../forge-url.js';
import { tokenForgeOptions } from '../token-side.js';
import { TransientEnvironmentStore } from '../../store/transient-store.js';
import { gitlabDryRunPort } from './gitlab-dry-run.js';
import { GitLabPublisher, wireOf, type GitLabPublishResult } from './gitlab-publisher.js';
import { GITLAB_REPORTING, GITLAB_SERVICE } from './gitlab-settings.js';
import { gitlabRefusalOf, keepsProvisional } from './gitlab-refusal.js';
import { createGitLabSide, type GitLabPort } from './gitlab-side.js';
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

export const gitlabForge: ForgeDriver<GitLabSettings, GitLabReporting, typeof GITLAB_REPORTING, typeof GITLAB_SERVICE> = {
  name: 'gitlab',
  title: 'GitLab',
  reports: 'GitLab deployments',
  settings: { reporting: GITLAB_REPORTING, service: GITLAB_SERVICE },
  ...placedByUrl<GitLabReporting>({
    forge: 'gitlab',
    urlSetting: 'GITLAB_URL',
    tokenSetting: 'GITLAB_TOKEN',
    nested: true,
    location: (s) => s.gitlabUrl,
  }),
  howToConfigure: 'GitLab (GITLAB_URL with GITLAB_TOKEN)',
  explain: (_s, t) => ({ where: `GitLab ${explainCommit(t)} deployment to environment ${t.environment}`, urlField: 'external_url' }),
  connect(s, d): ForgeConnection<GitLabPort, GitLabPublishResult> | undefined {
    if (s.gitlabUrl === undefined || s.gitlabToken === undefined) return undefined;
    const { deployments, refusals, log, now } = d;
    const side = createGitLabSide(tokenForgeOptions(d, 'gitlab', s.gitlabUrl, s.gitlabToken));
    const transients = new TransientEnvironmentStore(d.db);
    const url = s.gitlabUrl.webUrl;
    return {
      ...side,
      dryRun: gitlabDryRunPort,
      publisher: (port, onSent) =>
        new GitLabPublisher({ port, deployments, refusals, transients, agentId: s.gitlabAgentId, log, now, onSent }),
      count: (r) => ({ sent: r.sent, superseded: 0 }),
      refusal: { classify: gitlabRefusalOf, keepsProvisional },
      // A retired row says `gone`: its deployment was canceled if it was still running, else it keeps its status
      // on GitLab. Its link: the project's environments, filtered to the row's.
      describe: (row) => ({
        deploymentId: row.deploymentId,
        forgeState: row.state === null ? 'provisional' : row.state === 'gone' ? 'gone' : wireOf(row.state),
        url: `${url}/${repoWebPath(row)}/-/environments?search=${encodeURIComponent(row.environment)}`,
      }),
      stateHead: { url },
      summary: { url, ...(s.gitlabAgentId === undefined ? {} : { agentId: s.gitlabAgentId }) },
    };
  },
};
