import { parseGitLabUrl, type GitLabLocation } from './gitlab-url.js';
import { plainHttpRefused, tokenBesideUrl } from '../forge-url.js';
import { integer } from '../../common/setting-parsers.js';
import { setting, type Parse } from '../../common/settings-schema.js';

const gitlabUrl: Parse<GitLabLocation> = (value, check) => {
  const r = parseGitLabUrl(value, check.name);
  return 'problem' in r ? check.problem(r.problem) : (plainHttpRefused(value, check) ?? r);
};

/** Where GitLab is: reporting needs it (`explain` too) to route projects. */
export const GITLAB_REPORTING = {
  gitlabUrl: setting('GITLAB_URL', {
    parse: gitlabUrl,
    doc: 'web base URL of a GitLab server, sub-path installs included (API under `/api/v4`): projects on its host are reported there as deployments (see [GitLab](gitlab.md))',
  }),
};

/** The GitLab token: exactly one of `GITLAB_TOKEN` and `GITLAB_TOKEN_FILE` when `GITLAB_URL` is set, neither otherwise. */
const gitlabToken = tokenBesideUrl({
  url: 'GITLAB_URL',
  token: 'GITLAB_TOKEN',
  doc: 'GitLab access token (project, group or personal), scope `api`, role Developer or above (sent as `PRIVATE-TOKEN`)',
  needs: 'an access token with scope api',
});

/** `GITLAB_AGENT_ID`: GitLab's agent for Kubernetes in this cluster (its numeric id), to link environments to it. */
const gitlabAgentId = setting('GITLAB_AGENT_ID', {
  parse: integer(1, Number.MAX_SAFE_INTEGER, 'the numeric id of a GitLab agent for Kubernetes'),
  shown: '—',
  doc: "id of this cluster's GitLab agent for Kubernetes: each environment also gets `cluster_agent_id`, `kubernetes_namespace` (the workload's) and `flux_resource_path` (its Flux object), so GitLab's dashboard for Kubernetes shows it (see [GitLab](gitlab.md))",
});

/** GitLab's credentials and this cluster's agent: the server's own. */
export const GITLAB_SERVICE = { gitlabToken, gitlabAgentId };
