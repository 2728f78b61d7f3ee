import { errorMessage } from '../../common/errors.js';
import { parseAppPrivateKey } from './app-jwt.js';
import type { GitHubAuth } from './github-client.js';
import { boolean, duration, integer, url } from '../../common/setting-parsers.js';
import { rotatingSecret, secretValue } from '../../common/rotating-secret.js';
import { plainHttpRefused } from '../forge-url.js';
import { parseBudget, type BudgetWindow } from './write-budget.js';
import { parseShare, shareOf } from './budget-share.js';
import { INVALID, combine, secret, setting, type Check, type Invalid, type Parse } from '../../common/settings-schema.js';

/** Largest `GITHUB_WRITE_INTERVAL`: writes queued behind a longer spacing would outlive GITHUB_TIMEOUT_MS. */
const MAX_WRITE_INTERVAL_MS = 5_000;
const GITHUB_API = 'https://api.github.com';
const WEB = ['https:', 'http:'];

/** The web host (and port, when not the default) of a GitHub API base URL: api.github.com → github.com; GHES https://h:8443/api/v3 → h:8443. */
export function webHostOf(apiUrl: string): string {
  const host = new URL(apiUrl).host.toLowerCase();
  return host === 'api.github.com' ? 'github.com' : host;
}

/** GitHub's secondary limits for content-creating requests, per account (REST API rate-limit page). */
export const DEFAULT_WRITE_BUDGET = '80/1m,500/1h';

const budget: Parse<BudgetWindow[]> = (value, check) => {
  const parsed = parseBudget(value);
  return 'problem' in parsed ? check.invalid(parsed.problem) : parsed;
};

const share: Parse<number> = (value, check) => {
  const parsed = parseShare(value);
  return typeof parsed === 'number' ? parsed : check.invalid(parsed.problem);
};

const webHost: Parse<string> = (value, check) => {
  const checked = url(WEB)(value, check);
  if (checked === INVALID) return INVALID;
  return URL.canParse(checked) ? new URL(checked).host.toLowerCase() : check.invalid('is not an absolute URL');
};

const EITHER = 'one of token or App';
export const GITHUB_APP = 'GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH';

/** The App's key as given, once it parses as a PEM private key. */
function pemKey(bytes: Buffer, check: Check): string | Invalid {
  const key = bytes.toString('utf8');
  try {
    parseAppPrivateKey(key);
    return key;
  } catch (err) {
    return check.invalid(`is not a PEM private key of the App (${errorMessage(err)})`);
  }
}

/**
 * Exactly one of `GITHUB_TOKEN` or a GitHub App (`GITHUB_APP_ID` + `GITHUB_APP_PRIVATE_KEY` or `_PATH`), or neither
 * (GitHub not configured: undefined; `registry.ts` requires at least one forge).
 */
const githubAuth = combine(
  {
    token: rotatingSecret('GITHUB_TOKEN', {
      shown: EITHER,
      doc: 'token with Deployments read & write on the reported repositories',
    }),
    appId: setting('GITHUB_APP_ID', {
      parse: integer(1, Number.MAX_SAFE_INTEGER, "the App's numeric id"),
      shown: EITHER,
      doc: 'numeric id of the [GitHub App](github-app.md) (instead of `GITHUB_TOKEN`, never both)',
    }),
    privateKey: secret('GITHUB_APP_PRIVATE_KEY', {
      file: '_PATH',
      decode: pemKey,
      shown: 'with `GITHUB_APP_ID`',
      doc: "the App's private key (PEM as GitHub downloads it; `\\n` escapes accepted), or a file holding it",
    }),
    installationId: setting('GITHUB_APP_INSTALLATION_ID', {
      parse: integer(1, Number.MAX_SAFE_INTEGER, 'a numeric installation id'),
      shown: 'looked up',
      doc: "pins one installation for every repository; otherwise each owner's installation is looked up (`GET /repos/{owner}/{repo}/installation`) and kept for an hour in SQLite",
    }),
  },
  ({ token, appId, privateKey, installationId }, source): GitHubAuth | undefined | Invalid => {
    const app = appId !== undefined || privateKey !== undefined || installationId !== undefined;
    if (token !== undefined && app) return source.problem(`set either GITHUB_TOKEN or a GitHub App (${GITHUB_APP}), not both`);
    if (token !== undefined) return token === INVALID ? token : { kind: 'token', token: secretValue(token) };
    // No GitHub settings: GitHub is not configured (the registry says so when no forge is).
    if (!app) return undefined;
    if (appId === undefined) source.problem('GITHUB_APP_ID is required with a GitHub App private key');
    if (privateKey === undefined) source.problem('GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH is required with GITHUB_APP_ID');
    if (appId === undefined || appId === INVALID || privateKey === undefined || privateKey === INVALID || installationId === INVALID)
      return INVALID;
    return { kind: 'app', appId, privateKey, ...(installationId === undefined ? {} : { installationId }) };
  },
);

/** What routing to GitHub needs (`explain` reads these too). */
export const GITHUB_REPORTING = {
  githubApiUrl: setting('GITHUB_API_URL', {
    parse: (value, check) => {
      const api = url(WEB, { stripSlashes: true })(value, check);
      return api === INVALID ? api : (plainHttpRefused(api, check) ?? api);
    },
    default: GITHUB_API,
    doc: 'API base, for token and App; GitHub Enterprise Server: `https://<host>/api/v3`',
  }),
  githubHost: setting('GITHUB_SERVER_URL', {
    parse: webHost,
    // An unusable GITHUB_API_URL is reported by githubApiUrl.
    fallback: (source) => {
      const api = source.text('GITHUB_API_URL') ?? GITHUB_API;
      return URL.canParse(api) ? webHostOf(api) : 'github.com';
    },
    shown: 'from `GITHUB_API_URL`',
    doc: 'web host that repository URLs in labels must name (`https://github.com`, or the GHES host)',
  }),
};

/** GitHub's credentials and writes: the server's own. */
export const GITHUB_SERVICE = {
  githubAuth,
  githubWriteIntervalMs: setting('GITHUB_WRITE_INTERVAL', {
    parse: duration(`a duration from 0s to ${MAX_WRITE_INTERVAL_MS / 1000}s, such as 1s or 250ms`, {
      allowZero: true,
      maxMs: MAX_WRITE_INTERVAL_MS,
    }),
    default: '1s',
    doc: 'minimum time between GitHub writes (GitHub asks for ≥ 1 s between content-creating requests), `0s` to `5s`; `0s` only against a simulator',
  }),
  githubBatchedLookups: setting('GITHUB_BATCHED_LOOKUPS', {
    parse: boolean,
    default: 'true',
    doc: "find existing deployments of many new targets at once with GitHub's GraphQL API (its own hourly points, not REST's requests); `false`: one REST read per new deployment",
  }),
  /** The windows this bridge keeps: GITHUB_WRITE_BUDGET's, each count × GITHUB_WRITE_BUDGET_SHARE. */
  githubWriteBudget: combine(
    {
      windows: setting('GITHUB_WRITE_BUDGET', {
        parse: budget,
        default: DEFAULT_WRITE_BUDGET,
        doc: "writes allowed per credential scope (token, App, installation), a comma list of `<count>/<duration>` sliding windows; the default is GitHub's secondary limits, set it to a GitHub Enterprise Server administrator's limits; see the write budget (docs/write-budget.md)",
      }),
      share: setting('GITHUB_WRITE_BUDGET_SHARE', {
        parse: share,
        default: '1',
        doc: "this bridge's share of `GITHUB_WRITE_BUDGET` when several bridges (clusters) write as one GitHub identity (`1/5`, `0.2`, `20%`): each window's count × the share; shares of the bridges on one identity should sum to at most 1 (docs/write-budget.md)",
      }),
    },
    ({ windows, share }): BudgetWindow[] | Invalid => (windows === INVALID || share === INVALID ? INVALID : shareOf(windows, share)),
  ),
};
