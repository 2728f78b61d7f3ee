import type { Logger } from 'pino';
import type { Metrics } from '../../common/metrics.js';
import { createAppSide } from './app-auth.js';
import { parseAppPrivateKey } from './app-jwt.js';
import { CredentialMonitor } from '../credential-monitor.js';
import { githubUnauthorized } from './call-error.js';
import { GITHUB_BUDGETS } from './rate-limit.js';
import type { ForgeHealth } from '../forge-health.js';
import { forgeHealthOf } from '../token-side.js';
import type { InstallationCache } from './installation-lookup.js';
import { callGitHub, createDeploymentsPort, createOctokit, staticToken } from './octokit-factory.js';
import type { DeploymentsPort } from './github-types.js';
import { DEFAULT_WRITE_INTERVAL_MS, WriteSpacing } from './write-spacing.js';
import { BudgetGate } from './budget-gate.js';
import type { BudgetWindow } from './write-budget.js';
import type { CommentsPort } from '../comments-port.js';
import type { CommitTimesPort } from '../commit-times-port.js';
import { COMMIT_TOKEN_PERMISSIONS, githubCommitTimes } from './github-commit-times.js';
import { COMMENT_TOKEN_PERMISSIONS, githubComments, tokenLogin } from './github-comments.js';

/** How the bridge authenticates to GitHub: a token (or a reader of its file, called before each request), or a GitHub App (PEM private key). */
export type GitHubAuth =
  { kind: 'token'; token: string | (() => Promise<string>) } | { kind: 'app'; appId: number; privateKey: string; installationId?: number };

export interface GitHubSideOptions {
  auth: GitHubAuth;
  /** `https://api.github.com`, or `https://<host>/api/v3` for GitHub Enterprise Server. */
  baseUrl: string;
  userAgent: string;
  metrics: Metrics;
  log: Logger;
  now: () => number;
  /** The write budget's clock (common/timers.ts monotonicNow in the bridge); `now` when absent. */
  monotonic?: () => number;
  /** Where App installations are remembered (unused with a token). */
  installations: InstallationCache;
  /** Space writes ~1 s apart (default true). */
  spaceWrites?: boolean;
  /** Minimum milliseconds between writes (`GITHUB_WRITE_INTERVAL`; 0: none); default DEFAULT_WRITE_INTERVAL_MS (1 s). */
  writeIntervalMs?: number;
  /** Per-request timeout of the deployments port (default GITHUB_TIMEOUT_MS). */
  timeoutMs?: number;
  /**
   * Writes allowed per credential scope (`GITHUB_WRITE_BUDGET`), with the write spacing as a floor; none: no
   * budget (tests of other things).
   */
  writeBudget?: readonly BudgetWindow[];
}

/** The GitHub side as the rest of the bridge sees it. */
export interface GitHubSide {
  port: DeploymentsPort;
  /** Pull request comments, through the same clients (budgets, pauses, write spacing). */
  comments: CommentsPort;
  /** Commit times (the DORA lead time), through the same clients. */
  commits: CommitTimesPort;
  health: ForgeHealth;
  /** Checks the credentials at start and after a 401; `start()` once the process runs. */
  monitor: CredentialMonitor;
  /** The write budget of every credential scope, when one is set. */
  budget: BudgetGate | undefined;
}

/** Builds the GitHub clients for token or App auth, the health tracker that pauses them, and the credential check. */
export function createGitHubSide(o: GitHubSideOptions): GitHubSide {
  const health = forgeHealthOf({
    forge: 'github',
    title: 'GitHub',
    auth: o.auth.kind,
    budgets: GITHUB_BUDGETS,
    metrics: o.metrics,
    now: o.now,
  });
  const monitor: { current?: CredentialMonitor } = {};
  const floorMs = o.spaceWrites === false ? 0 : (o.writeIntervalMs ?? DEFAULT_WRITE_INTERVAL_MS);
  const budget =
    o.writeBudget &&
    new BudgetGate({ forge: 'GitHub', windows: o.writeBudget, floorMs, now: o.now, ...(o.monotonic ? { monotonic: o.monotonic } : {}) });
  const client = {
    baseUrl: o.baseUrl,
    userAgent: o.userAgent,
    metrics: o.metrics,
    log: o.log,
    health,
    now: o.now,
    ...(o.spaceWrites === undefined ? {} : { spaceWrites: o.spaceWrites }),
    ...(o.writeIntervalMs === undefined ? {} : { writeSpacing: new WriteSpacing(o.writeIntervalMs) }),
    ...(budget === undefined ? {} : { budget }),
  };
  const onUnauthorized = (reason: string) => monitor.current?.rejected(reason);
  let port: DeploymentsPort;
  let comments: CommentsPort;
  let commits: CommitTimesPort;
  let check: () => Promise<string | undefined>;
  if (o.auth.kind === 'token') {
    const token = o.auth.token;
    const credentials = typeof token === 'string' ? staticToken(token) : { scheme: 'token' as const, get: token };
    const octokit = createOctokit({ ...client, onUnauthorized, credentials, scope: 'token' });
    port = createDeploymentsPort(octokit, o.timeoutMs);
    comments = githubComments(() => Promise.resolve(octokit), { kind: 'token', login: tokenLogin(octokit, o.timeoutMs) }, o.timeoutMs);
    commits = githubCommitTimes(() => Promise.resolve(octokit), o.timeoutMs);
    // The check is never paused (it is what ends a credentials pause) and handles its own 401.
    const checker = createOctokit({ ...client, credentials, scope: 'token', gated: false, spaceWrites: false });
    check = async () => {
      // Free of charge: GET /rate_limit does not count against the budget, and answers 401 for a bad token.
      await callGitHub('credentialCheck', 'check GITHUB_TOKEN (GET /rate_limit)', (signal) =>
        checker.request('GET /rate_limit', { request: { signal } }),
      );
      return undefined;
    };
  } else {
    const app = createAppSide({
      app: {
        appId: o.auth.appId,
        privateKey: parseAppPrivateKey(o.auth.privateKey),
        ...(o.auth.installationId !== undefined ? { installationId: o.auth.installationId } : {}),
      },
      client,
      onUnauthorized,
      installations: o.installations,
      now: o.now,
      ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    });
    port = app.port;
    comments = githubComments((r) => app.clientFor(r, COMMENT_TOKEN_PERMISSIONS), { kind: 'app', appId: o.auth.appId }, o.timeoutMs);
    commits = githubCommitTimes((r) => app.clientFor(r, COMMIT_TOKEN_PERMISSIONS), o.timeoutMs);
    check = () => app.check();
  }
  monitor.current = new CredentialMonitor({ check, health, unauthorized: githubUnauthorized, log: o.log, now: o.now });
  return { port, comments, commits, health, monitor: monitor.current, budget };
}
