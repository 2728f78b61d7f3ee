import { parseContextTemplate, type ContextTemplate } from './status-context.js';
import { parseForgejoUrl, type ForgejoLocation } from './forgejo-url.js';
import { plainHttpRefused, tokenBesideUrl } from '../forge-url.js';
import { setting, type Parse } from '../../common/settings-schema.js';

const forgejoUrl: Parse<ForgejoLocation> = (value, check) => {
  const r = parseForgejoUrl(value, check.name);
  return 'problem' in r ? check.problem(r.problem) : (plainHttpRefused(value, check) ?? r);
};

const contextTemplate: Parse<ContextTemplate> = (value, check) => {
  const r = parseContextTemplate(value);
  return 'problem' in r ? check.problem(`${check.name}: ${r.problem}`) : r;
};

/** Where Forgejo (or Gitea) is: reporting needs it (`explain` too) to route repositories and name contexts. */
export const FORGEJO_REPORTING = {
  forgejoUrl: setting('FORGEJO_URL', {
    parse: forgejoUrl,
    doc: 'web base URL of a Forgejo or Gitea server (API under `/api/v1`): repositories on its host are reported there as commit statuses (see [Forgejo and Gitea](forgejo.md))',
  }),
  forgejoStatusContext: setting('FORGEJO_STATUS_CONTEXT', {
    parse: contextTemplate,
    default: 'deploy/{environment}/{deploymentName} ({cluster})',
    doc: 'commit-status context: `{environment}`, `{deploymentName}` (left out with its separator when not annotated) and `{cluster}`, each once',
  }),
};

/** The Forgejo token: exactly one of `FORGEJO_TOKEN` and `FORGEJO_TOKEN_FILE` when `FORGEJO_URL` is set, neither otherwise. */
const forgejoToken = tokenBesideUrl({
  url: 'FORGEJO_URL',
  token: 'FORGEJO_TOKEN',
  doc: 'Forgejo/Gitea access token, scope `write:repository` (sent as `Authorization: token …`)',
  needs: 'an access token with scope write:repository',
});

/** Forgejo's credentials: the server's own. */
export const FORGEJO_SERVICE = { forgejoToken };
