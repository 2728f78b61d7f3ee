/**
 * Every setting, declared once: variable, type, default, README line. `loadConfig` reads them and README's
 * configuration table is generated from them (`npm run docs:config`); adding a setting is one entry here.
 */
import { rotatingSecret } from '../common/rotating-secret.js';
import { MIN_SECRET_BYTES, weakSecret } from '../common/secret-strength.js';
import { errorMessage } from '../common/errors.js';
import { STATUS_RATE_PER_MINUTE, WEBHOOK_RATE_PER_MINUTE } from '../common/request-rates.js';
import { parseRepositoryPatterns, type RepositoryPattern } from '../metadata/repository-trust.js';
import { parseDockerConfigJson } from '../oci/docker-config.js';
import { DEFAULT_PLATFORM, formatPlatform, parsePlatform } from '../oci/platform.js';
import { FORGE_REPORTING_SETTINGS, FORGE_SERVICE_SETTINGS } from '../forges/registry.js';
import { ALLOW_HTTP_SETTING } from '../forges/forge-url.js';
import { boolean, duration, integer, list, oneOf, text, url } from '../common/setting-parsers.js';
import { INVALID, combine, secret, setting, type Parse } from '../common/settings-schema.js';

/**
 * Smallest `RESYNC_INTERVAL`: refuses `1ms`-style slips that would re-list the cluster in a tight loop,
 * while the end-to-end tests can still resync every second or two.
 */
export const MIN_RESYNC_INTERVAL_MS = 1_000;

/** `DATABASE_PATH` when unset (the server's and the `dora` command's). */
export const DEFAULT_DATABASE_PATH = './data/github-deployment-bridge.db';
const TEMPLATE_NOTE = '(template, absolute https)';

const repositoryPatterns: Parse<RepositoryPattern[]> = (value, check) => {
  const { patterns, errors } = parseRepositoryPatterns(value);
  for (const e of errors) check.problem(`${check.name}: ${e}`);
  if (errors.length > 0) return INVALID;
  return patterns.length > 0 || value === '' ? patterns : check.problem(`${check.name} is empty`);
};

/** The path, once the file reads as a docker config.json. */
const dockerConfigFile: Parse<string> = (path, check) => {
  const bytes = check.read(path);
  if (bytes === INVALID) return INVALID;
  try {
    parseDockerConfigJson(bytes.toString('utf8'), check.label);
    return path;
  } catch (err) {
    return check.problem(`${errorMessage(err)}: expected a docker config.json`);
  }
};

const platform: Parse<ReturnType<typeof parsePlatform>> = (value, check) => {
  try {
    return parsePlatform(value);
  } catch {
    return check.invalid('must be os/arch[/variant], e.g. linux/amd64 or linux/arm64/v8');
  }
};

/** What shapes a report: the settings `explain` reads too. */
export const REPORTING_SETTINGS = {
  ...FORGE_REPORTING_SETTINGS,
  kubeconfig: setting('KUBECONFIG', {
    parse: text,
    shown: '`~/.kube/config`, else in-cluster service account',
    doc: 'kubeconfig file',
  }),
  clusterName: setting('CLUSTER_NAME', {
    parse: text,
    required: 'the name of the cluster this bridge reports, as the forges show it (prod-eu)',
    doc: 'sent as payload `cluster`',
  }),
  clusterKubeconfigDir: setting('CLUSTER_KUBECONFIG_DIR', {
    parse: text,
    doc: 'directory of kubeconfig files, one per remote cluster (`<cluster>`, `<cluster>.yaml` or `<cluster>.kubeconfig`): used for a Flux object with `spec.kubeConfig` instead of its Secret (docs/fleet.md)',
  }),
  clusterTokenDir: setting('CLUSTER_TOKEN_DIR', {
    parse: text,
    doc: "directory of projected tokens of the bridge's own ServiceAccount, one per audience: for a Flux object whose `spec.kubeConfig.configMapRef` says `provider: generic`, the token with the ConfigMap's audience is sent to its `address` (docs/fleet.md)",
  }),
  environment: setting('ENVIRONMENT', {
    parse: text,
    doc: 'default environment (on every forge); the `environment` annotation overrides; a workload with neither is skipped with a reason',
  }),
  environmentUrl: setting('ENVIRONMENT_URL', { parse: url(['https:']), doc: `default status \`environment_url\` ${TEMPLATE_NOTE}` }),
  environmentUrlScheme: setting('ENVIRONMENT_URL_SCHEME', {
    parse: oneOf(['https', 'http'], { ignoreCase: true }),
    default: 'https',
    doc: 'scheme of an `environment_url` discovered from an `HTTPRoute` (an Ingress says it by its `tls`; see [Preview routes](preview-routes.md))',
  }),
  logUrlTemplate: setting('LOG_URL_TEMPLATE', { parse: url(['https:']), doc: `default status \`log_url\` ${TEMPLATE_NOTE}` }),
  logUrlTemplateEscape: setting('LOG_URL_TEMPLATE_ESCAPE', {
    parse: boolean,
    default: 'false',
    doc: 'percent-encode the values expanded into URL templates',
  }),
  description: setting('DESCRIPTION', { parse: text, default: 'Deployed by Flux', doc: 'deployment description' }),
  transientEnvironments: setting('TRANSIENT_ENVIRONMENTS', {
    parse: list,
    default: '',
    doc: 'comma list of environment patterns (`pr-*`, only `*` is special) whose deployments are transient previews (`transient_environment: true`)',
  }),
  allowedRepositories: setting('ALLOWED_REPOSITORIES', {
    parse: repositoryPatterns,
    default: '',
    shown: 'all',
    doc: 'comma list of `owner/*` and `owner/repo` (any forge), `host[:port]/owner/*` and `host[:port]/owner/repo` (one forge; no port: the forge on its default port), case-insensitive; a workload naming another repository is skipped with a reason, never written (see [Trust boundary](trust-boundary.md))',
  }),
  repositorySource: setting('REPOSITORY_SOURCE', {
    parse: oneOf(['annotation', 'any'], { ignoreCase: true }),
    default: 'any',
    doc: '`annotation`: only the `repository` annotation names the repository (image labels still give the commit); `any`: annotation, else image label',
  }),
  registryAuthFile: setting('REGISTRY_AUTH_FILE', {
    parse: dockerConfigFile,
    doc: "docker `config.json` with registry credentials, used after the workload's own `imagePullSecrets`; re-read when it changes",
  }),
  registryInsecureHosts: setting('REGISTRY_INSECURE_HOSTS', {
    parse: list,
    default: '',
    doc: 'comma list of `host[:port]` registries (and token services) reached over plain HTTP',
  }),
  registryAllowedHosts: setting('REGISTRY_ALLOWED_HOSTS', {
    parse: list,
    default: '',
    shown: 'any host',
    doc: 'comma list of `host[:port]` patterns (`*` within one DNS label) of every host registry reads may contact: registries, their token services, redirect targets (blob storage); another host is refused and the workload skipped (`registry_not_allowed`)',
  }),
  registryPlatform: setting('REGISTRY_PLATFORM', {
    parse: platform,
    default: formatPlatform(DEFAULT_PLATFORM),
    doc: '`os/arch[/variant]` picked from multi-arch images (`linux/arm64`, `linux/arm/v7`)',
  }),
  allowHttpForgeUrls: setting(ALLOW_HTTP_SETTING, {
    parse: boolean,
    default: 'false',
    doc: '`true` lets `GITHUB_API_URL`, `FORGEJO_URL` and `GITLAB_URL` be plain `http` (a simulator, a sidecar or mesh that encrypts; tokens cross the network in clear, warned at start); else they must be `https`',
  }),
  logLevel: setting('LOG_LEVEL', {
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: 'pino level',
  }),
};

/** The server's own: listening, the webhook key, the forges' credentials and writes, the queue and cleanup. */
const SERVICE_SETTINGS = {
  port: setting('PORT', {
    parse: integer(0, 65535),
    default: '8484',
    doc: "port of every endpoint; not 8080, which Flux's `allow-scraping` NetworkPolicy opens to all namespaces in `flux-system`",
  }),
  host: setting('HOST', { parse: text, default: '0.0.0.0', doc: 'address to listen on' }),
  webhookKeys: combine(
    {
      shared: secret('WEBHOOK_TOKEN', {
        raw: true,
        decode: (bytes, check) => {
          const why = bytes.length === 0 ? undefined : weakSecret(bytes);
          return why === undefined ? bytes : check.problem(`${check.name} ${why}`);
        },
        shown: 'required, or `WEBHOOK_TOKEN_DIR`',
        doc: `the HMAC key of the Flux Provider, used byte for byte (a trailing newline in the file is part of the key, as in Flux); verifies events of every namespace; at least ${MIN_SECRET_BYTES} bytes, not an example's placeholder`,
      }),
      dir: setting('WEBHOOK_TOKEN_DIR', {
        parse: text,
        doc: "a directory of HMAC keys, one file per namespace named by it (a mounted Secret; read again when it changes): namespace N's key verifies only events about objects in N (an event is tried with the shared key and its namespace's key only; docs/security.md)",
      }),
    },
    ({ shared, dir }, source) => {
      if (shared === INVALID || dir === INVALID) return INVALID;
      if ((shared === undefined || shared.length === 0) && dir === undefined)
        return source.problem(
          'WEBHOOK_TOKEN or WEBHOOK_TOKEN_FILE is required (or WEBHOOK_TOKEN_DIR): the HMAC key of the Flux generic-hmac Provider',
        );
      return { ...(shared !== undefined && shared.length > 0 ? { shared } : {}), ...(dir !== undefined ? { dir } : {}) };
    },
  ),
  webhookRatePerMinute: setting('WEBHOOK_RATE_PER_MINUTE', {
    parse: integer(1, 1_000_000_000),
    shown: `\`${WEBHOOK_RATE_PER_MINUTE}\``,
    doc: 'webhook requests accepted per minute from one client address (`429` beyond), counted apart for verified events and for requests whose signature fails',
  }),
  statusRatePerMinute: setting('STATUS_RATE_PER_MINUTE', {
    parse: integer(1, 1_000_000_000),
    shown: `\`${STATUS_RATE_PER_MINUTE}\``,
    doc: 'requests per minute from one client address to `/readyz`, and to `/state` with the status page (`429` beyond; each has its own budget, so a reader of `/state` never fails the probe)',
  }),
  stateToken: rotatingSecret(
    'STATE_TOKEN',
    {
      shown: '—',
      doc: `when set, \`/state\` requires \`Authorization: Bearer <token>\`; at least ${MIN_SECRET_BYTES} bytes, not an example's placeholder; unset, \`/state\` is open (said at start)`,
    },
    weakSecret,
  ),
  ...FORGE_SERVICE_SETTINGS,
  databasePath: setting('DATABASE_PATH', {
    parse: text,
    default: DEFAULT_DATABASE_PATH,
    doc: 'SQLite file (directory created if missing)',
  }),
  doraEnvironments: setting('DORA_ENVIRONMENTS', {
    parse: list,
    default: '',
    doc: 'comma list of environment patterns (`staging`, `qa-*`, only `*` is special) counted in the `gdb_dora_*` metrics besides production ones (`production`, `prod`, `production/…`); previews never ([DORA](dora.md))',
  }),
  dryRun: setting('DRY_RUN', {
    parse: boolean,
    default: 'false',
    doc: 'do everything except forge writes (on every forge), which are logged; the cache is kept in memory',
  }),
  resyncIntervalMs: setting('RESYNC_INTERVAL', {
    parse: duration(`a duration of at least ${MIN_RESYNC_INTERVAL_MS / 1000}s, such as 30s, 5m, 1h or plain seconds`, {
      minMs: MIN_RESYNC_INTERVAL_MS,
    }),
    default: '5m',
    doc: `how often every Flux object is read again: \`30s\`, \`5m\`, \`1h\` or plain seconds; at least \`${MIN_RESYNC_INTERVAL_MS / 1000}s\`, shorter is refused`,
  }),
  watchNamespaces: setting('WATCH_NAMESPACES', {
    parse: list,
    default: '',
    shown: 'all',
    doc: 'comma list of namespaces whose Flux objects are reported (events for others are accepted and ignored)',
  }),
  reconcileConcurrency: setting('RECONCILE_CONCURRENCY', { parse: integer(1, 64), default: '4', doc: 'Flux objects reconciled at once' }),
  cleanupGraceMs: setting('CLEANUP_GRACE', {
    parse: duration('a duration such as 15s or 1m'),
    default: '15s',
    doc: 'how long a workload must be gone (seen by two consecutive reads) before its live deployments turn `inactive`',
  }),
  pullRequestComments: setting('PULL_REQUEST_COMMENTS', {
    parse: boolean,
    default: 'true',
    doc: 'keep one comment per pull request and cluster listing its previews (docs/pull-request-comments.md); `false` turns it off',
  }),
  pullRequestLookup: setting('PULL_REQUEST_LOOKUP', {
    parse: boolean,
    default: 'false',
    doc: 'without a pull request annotation, ask the forge which open pull request has the commit as its head (GitHub, GitLab; Forgejo cannot; cached per commit)',
  }),
  pullRequestCommentWindowMs: setting('PULL_REQUEST_COMMENT_WINDOW', {
    parse: duration('a duration such as 5s or 500ms (0: no window)', { allowZero: true }),
    default: '5s',
    doc: 'at most one edit of a pull request comment in this window, however many workloads change at once',
  }),
};

/** Everything the server reads, in README's order. */
export const SETTINGS = { ...SERVICE_SETTINGS, ...REPORTING_SETTINGS };
