import { readFileSync } from 'node:fs';
import { githubAuthFrom } from './github-auth-config.js';
import type { GitHubAuth } from '../github/github-client.js';
import { webHostOf } from '../metadata/repository.js';
import { parseRepositoryPatterns, type RepositoryPattern, type RepositorySource } from '../metadata/repository-trust.js';
import { parseDockerConfigJson } from '../oci/docker-config.js';
import { DEFAULT_PLATFORM, parsePlatform, type Platform } from '../oci/platform.js';

/** Typed, validated configuration; built once by `loadConfig` in the composition root. */
export interface Config {
  port: number;
  host: string;
  /** HMAC key for Flux's generic-hmac Provider, byte for byte. */
  webhookKey: Buffer;
  /** `GITHUB_TOKEN`, or a GitHub App (`GITHUB_APP_ID` + private key, optional installation id). */
  githubAuth: GitHubAuth;
  githubApiUrl: string;
  /** Web host that repository URLs (labels, annotations) must name: github.com or the GHES host. */
  githubHost: string;
  kubeconfig?: string;
  clusterName: string;
  environment?: string;
  environmentUrl?: string;
  logUrlTemplate?: string;
  description: string;
  databasePath: string;
  resyncIntervalMs: number;
  watchNamespaces: string[];
  logLevel: string;
  registryInsecureHosts: string[];
  /** Docker config file with controller-wide registry credentials (after workloads' imagePullSecrets). */
  registryAuthFile?: string;
  /** Platform picked from multi-arch image indexes. */
  registryPlatform: Platform;
  reconcileConcurrency: number;
  /** `ALLOWED_REPOSITORIES`: only these repositories are written to (empty: all). */
  allowedRepositories: RepositoryPattern[];
  /** `REPOSITORY_SOURCE`: `annotation` trusts only the repository annotation. */
  repositorySource: RepositorySource;
  /** Environment patterns (`pr-*`) whose deployments are transient previews. */
  transientEnvironments: string[];
  /** How long a workload must be gone (seen by two reads) before its deployments turn inactive. */
  cleanupGraceMs: number;
  /** Percent-encode values expanded into URL templates. */
  logUrlTemplateEscape: boolean;
  /** Everything but GitHub writes, which are logged; the cache is kept in memory. */
  dryRun: boolean;
  /** Bearer token that /state requires, when set. */
  stateToken?: string;
  /** `WEBHOOK_RATE_PER_MINUTE`: webhook requests per client address per minute before 429 (unset: the built-in default). */
  webhookRatePerMinute?: number;
  /** `GITHUB_WRITE_INTERVAL`: minimum milliseconds between GitHub writes (0: not spaced). */
  githubWriteIntervalMs: number;
}

/** Thrown with every problem found, so a person fixes them all at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Largest `GITHUB_WRITE_INTERVAL`: writes queued behind a longer spacing would outlive GITHUB_TIMEOUT_MS. */
const MAX_WRITE_INTERVAL_MS = 5_000;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses `30s`, `5m`, `1h`, `250ms` or plain seconds into milliseconds. */
export function parseDuration(value: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNITS[m[2] ?? 's']!;
  return ms > 0 ? ms : undefined;
}

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Reads and validates configuration from environment variables; reports every problem at once. */
export function loadConfig(env: NodeJS.ProcessEnv, readFile: (path: string) => Buffer = readFileSync): Config {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, def: number, min: number, max: number): number => {
    const v = str(name);
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) problems.push(`${name}="${v}" must be a whole number from ${min} to ${max}`);
    return n;
  };
  const url = (name: string, v: string | undefined, protocols: string[]): void => {
    if (v === undefined) return;
    try {
      const u = new URL(v.replace(/\{[a-zA-Z]+\}/g, 'x'));
      if (!protocols.includes(u.protocol)) problems.push(`${name}="${v}" must be an ${protocols.join(' or ')} URL`);
    } catch {
      problems.push(`${name}="${v}" is not an absolute URL`);
    }
  };

  let webhookKey: Buffer = Buffer.alloc(0);
  const token = env.WEBHOOK_TOKEN;
  const tokenFile = str('WEBHOOK_TOKEN_FILE');
  if (token && tokenFile) problems.push('set only one of WEBHOOK_TOKEN and WEBHOOK_TOKEN_FILE');
  else if (token) webhookKey = Buffer.from(token, 'utf8');
  else if (tokenFile) {
    try {
      webhookKey = readFile(tokenFile);
    } catch (err) {
      problems.push(`WEBHOOK_TOKEN_FILE="${tokenFile}" cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (webhookKey.length === 0 && !problems.some((p) => p.includes('WEBHOOK_TOKEN'))) {
    problems.push('WEBHOOK_TOKEN or WEBHOOK_TOKEN_FILE is required: the HMAC key of the Flux generic-hmac Provider');
  }

  const githubAuth = githubAuthFrom(str, readFile, problems);
  const githubApiUrl = (str('GITHUB_API_URL') ?? 'https://api.github.com').replace(/\/+$/, '');
  url('GITHUB_API_URL', githubApiUrl, ['https:', 'http:']);
  const serverUrl = str('GITHUB_SERVER_URL');
  url('GITHUB_SERVER_URL', serverUrl, ['https:', 'http:']);
  let githubHost = 'github.com';
  try {
    githubHost = serverUrl ? new URL(serverUrl).hostname : webHostOf(githubApiUrl);
  } catch {
    // reported above
  }
  const clusterName = str('CLUSTER_NAME') ?? '';
  if (!clusterName) problems.push('CLUSTER_NAME is required: the name sent as payload.cluster');
  const environmentUrl = str('ENVIRONMENT_URL');
  const logUrlTemplate = str('LOG_URL_TEMPLATE');
  url('ENVIRONMENT_URL', environmentUrl, ['https:']);
  url('LOG_URL_TEMPLATE', logUrlTemplate, ['https:']);
  const resyncText = str('RESYNC_INTERVAL') ?? '5m';
  const resyncIntervalMs = parseDuration(resyncText) ?? 0;
  if (!resyncIntervalMs) problems.push(`RESYNC_INTERVAL="${resyncText}" must be a duration such as 30s, 5m, 1h or plain seconds`);
  const logLevel = str('LOG_LEVEL') ?? 'info';
  if (!LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL="${logLevel}" must be one of ${LEVELS.join(', ')}`);

  const registryAuthFile = str('REGISTRY_AUTH_FILE');
  if (registryAuthFile) {
    try {
      parseDockerConfigJson(readFile(registryAuthFile).toString('utf8'), `REGISTRY_AUTH_FILE="${registryAuthFile}"`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push(
        code
          ? `REGISTRY_AUTH_FILE="${registryAuthFile}" cannot be read (${code})`
          : `${(err as Error).message}: expected a docker config.json`,
      );
    }
  }
  let registryPlatform: Platform = DEFAULT_PLATFORM;
  const platformText = str('REGISTRY_PLATFORM');
  if (platformText) {
    try {
      registryPlatform = parsePlatform(platformText);
    } catch {
      problems.push(`REGISTRY_PLATFORM="${platformText}" must be os/arch[/variant], e.g. linux/amd64 or linux/arm64/v8`);
    }
  }

  const allowed = parseRepositoryPatterns(str('ALLOWED_REPOSITORIES') ?? '');
  for (const e of allowed.errors) problems.push(`ALLOWED_REPOSITORIES: ${e}`);
  const allowedRepositories = allowed.patterns;
  if (str('ALLOWED_REPOSITORIES') && allowedRepositories.length === 0 && allowed.errors.length === 0)
    problems.push('ALLOWED_REPOSITORIES is empty');
  const repositorySource = (str('REPOSITORY_SOURCE') ?? 'any').toLowerCase();
  if (repositorySource !== 'any' && repositorySource !== 'annotation')
    problems.push(`REPOSITORY_SOURCE="${str('REPOSITORY_SOURCE')}" must be annotation or any`);

  const cleanupText = str('CLEANUP_GRACE') ?? '15s';
  const cleanupGraceMs = parseDuration(cleanupText) ?? 0;
  if (!cleanupGraceMs) problems.push(`CLEANUP_GRACE="${cleanupText}" must be a duration such as 15s or 1m`);
  const writeText = str('GITHUB_WRITE_INTERVAL') ?? '1s';
  // parseDuration refuses 0; here 0 is meaningful (no spacing, for simulators).
  const githubWriteIntervalMs = /^0+(\.0+)?(ms|s|m|h)?$/.test(writeText) ? 0 : (parseDuration(writeText) ?? -1);
  if (githubWriteIntervalMs < 0 || githubWriteIntervalMs > MAX_WRITE_INTERVAL_MS)
    problems.push(`GITHUB_WRITE_INTERVAL="${writeText}" must be a duration from 0s to 5s, such as 1s or 250ms`);
  const bool = (name: string): boolean => {
    const v = (str(name) ?? 'false').toLowerCase();
    if (!['true', 'false', '1', '0', 'yes', 'no'].includes(v)) problems.push(`${name}="${str(name)}" must be true or false`);
    return ['true', '1', 'yes'].includes(v);
  };

  const config: Config = {
    port: int('PORT', 8080, 0, 65535),
    host: str('HOST') ?? '0.0.0.0',
    webhookKey,
    githubAuth,
    githubApiUrl,
    githubHost,
    ...(str('KUBECONFIG') ? { kubeconfig: str('KUBECONFIG')! } : {}),
    clusterName,
    ...(str('ENVIRONMENT') ? { environment: str('ENVIRONMENT')! } : {}),
    ...(environmentUrl ? { environmentUrl } : {}),
    ...(logUrlTemplate ? { logUrlTemplate } : {}),
    description: str('DESCRIPTION') ?? 'Deployed by Flux',
    databasePath: str('DATABASE_PATH') ?? './data/github-deployment-bridge.db',
    resyncIntervalMs,
    watchNamespaces: list(env.WATCH_NAMESPACES),
    logLevel,
    registryInsecureHosts: list(env.REGISTRY_INSECURE_HOSTS),
    ...(registryAuthFile ? { registryAuthFile } : {}),
    registryPlatform,
    reconcileConcurrency: int('RECONCILE_CONCURRENCY', 4, 1, 64),
    allowedRepositories,
    repositorySource: repositorySource as RepositorySource,
    transientEnvironments: list(env.TRANSIENT_ENVIRONMENTS),
    cleanupGraceMs,
    logUrlTemplateEscape: bool('LOG_URL_TEMPLATE_ESCAPE'),
    dryRun: bool('DRY_RUN'),
    ...(str('STATE_TOKEN') ? { stateToken: str('STATE_TOKEN')! } : {}),
    ...(str('WEBHOOK_RATE_PER_MINUTE') ? { webhookRatePerMinute: int('WEBHOOK_RATE_PER_MINUTE', 0, 1, 1_000_000_000) } : {}),
    githubWriteIntervalMs,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
