import { parseGitLabUrl, type GitLabLocation } from './gitlab-url.js';
import { plainHttpRefused } from '../forge-url.js';
import { rotatingSecret, type RotatingSecret } from '../../common/rotating-secret.js';
import { combine, setting, type Invalid, type Parse } from '../../common/settings-schema.js';

const gitlabUrl: Parse<GitLabLocation> = (value, check) => {
  const r = parseGitLabUrl(value, check.name);
  return 'problem' in r ? check.problem(r.problem) : (plainHttpRefused(value, check) ?? r);
};

/** Where GitLab is: reporting needs it (`explain` too) to route projects. */
export const GITLAB_REPORTING = {
  gitlabUrl: setting('GITLAB_URL', {
    parse: gitlabUrl,
    doc: 'web base URL of a GitLab server, sub-path installs included (API under `/api/v4`): projects on its host are reported there as deployments (see [GitLab](docs/gitlab.md))',
  }),
};

/** The GitLab token: exactly one of `GITLAB_TOKEN` and `GITLAB_TOKEN_FILE` when `GITLAB_URL` is set, neither otherwise. */
const gitlabToken = combine(
  {
    token: rotatingSecret('GITLAB_TOKEN', {
      shown: 'with `GITLAB_URL`',
      doc: 'GitLab access token (project, group or personal), scope `api`, role Developer or above (sent as `PRIVATE-TOKEN`)',
    }),
  },
  ({ token }, source): RotatingSecret | undefined | Invalid => {
    if (source.text('GITLAB_URL') === undefined) {
      if (token !== undefined) return source.problem('GITLAB_TOKEN or GITLAB_TOKEN_FILE is set, but GITLAB_URL is not');
      return undefined;
    }
    if (token !== undefined) return token;
    return source.problem('GITLAB_TOKEN or GITLAB_TOKEN_FILE is required with GITLAB_URL: an access token with scope api');
  },
);

/** GitLab's credentials: the server's own. */
export const GITLAB_SERVICE = { gitlabToken };
