import { parseContextTemplate, type ContextTemplate } from '../forges/forgejo/status-context.js';
import { parseForgejoUrl, type ForgejoLocation } from '../forges/forgejo/forgejo-url.js';
import { text } from './parsers.js';
import { INVALID, combine, setting, type Invalid, type Parse } from './schema.js';

/** How the Forgejo token is read: inline, or from a file read again before each request (a rotated Secret is picked up). */
export type ForgejoToken = { kind: 'inline'; value: string } | { kind: 'file'; path: string };

const forgejoUrl: Parse<ForgejoLocation> = (value, check) => {
  const r = parseForgejoUrl(value, check.name);
  return 'problem' in r ? check.problem(r.problem) : r;
};

const contextTemplate: Parse<ContextTemplate> = (value, check) => {
  const r = parseContextTemplate(value);
  return 'problem' in r ? check.problem(`${check.name}: ${r.problem}`) : r;
};

/** A file path, once the file reads and is not empty (it is read again before each request). */
const tokenFile: Parse<string> = (path, check) => {
  const bytes = check.read(path);
  if (bytes === INVALID) return INVALID;
  return bytes.toString('utf8').trim() === '' ? check.invalid('is empty') : path;
};

/** Where Forgejo (or Gitea) is: reporting needs it (`explain` too) to route repositories and name contexts. */
export const FORGEJO_REPORTING = {
  forgejoUrl: setting('FORGEJO_URL', {
    parse: forgejoUrl,
    doc: 'web base URL of a Forgejo or Gitea server (API under `/api/v1`): repositories on its host are reported there as commit statuses (see [Forgejo and Gitea](#forgejo-and-gitea))',
  }),
  forgejoStatusContext: setting('FORGEJO_STATUS_CONTEXT', {
    parse: contextTemplate,
    default: 'deploy/{environment}/{deploymentName} ({cluster})',
    doc: 'commit-status context: `{environment}`, `{deploymentName}` (left out with its separator when not annotated) and `{cluster}`, each once',
  }),
};

/** The Forgejo token: exactly one of `FORGEJO_TOKEN` and `FORGEJO_TOKEN_FILE` when `FORGEJO_URL` is set, neither otherwise. */
export const forgejoToken = combine(
  {
    token: setting('FORGEJO_TOKEN', {
      parse: text,
      shown: 'with `FORGEJO_URL`',
      doc: 'Forgejo/Gitea access token, scope `write:repository` (sent as `Authorization: token …`)',
    }),
    file: setting('FORGEJO_TOKEN_FILE', {
      parse: tokenFile,
      shown: 'or this',
      doc: 'a file holding that token, read again before each request',
    }),
  },
  ({ token, file }, source): ForgejoToken | undefined | Invalid => {
    const configured = source.text('FORGEJO_URL') !== undefined;
    if (!configured) {
      if (token !== undefined || file !== undefined)
        return source.problem('FORGEJO_TOKEN or FORGEJO_TOKEN_FILE is set, but FORGEJO_URL is not');
      return undefined;
    }
    if (token !== undefined && file !== undefined) return source.problem('set only one of FORGEJO_TOKEN and FORGEJO_TOKEN_FILE');
    if (token === INVALID || file === INVALID) return INVALID;
    if (token !== undefined) return { kind: 'inline', value: token };
    if (file !== undefined) return { kind: 'file', path: file };
    return source.problem('FORGEJO_TOKEN or FORGEJO_TOKEN_FILE is required with FORGEJO_URL: an access token with scope write:repository');
  },
);
