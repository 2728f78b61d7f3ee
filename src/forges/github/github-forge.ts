/**
 * GitHub as a forge: Deployments and deployment statuses, with a token or a GitHub App. Its driver: its settings,
 * routing, its client, health and credential check (`createGitHubSide`), its publisher, refusal rules and dry run,
 * its write budget and its own parts of /state and /metrics.
 */
import { monotonicNow } from '../../common/timers.js';
import type { ReportTarget } from '../../metadata/resolve-target.js';
import type { Forge } from '../forge.js';
import { explainCommit, laneOf, repoWebPath } from '../forge.js';
import type { ForgeConnection, ForgeDriver } from '../forge-driver.js';
import type { BudgetWindow } from './write-budget.js';
import { backlogState, budgetState, scrapeBacklog } from './budget-state.js';
import { GITHUB_APP, GITHUB_REPORTING, GITHUB_SERVICE } from './github-settings.js';
import type { DeploymentsPort } from './github-types.js';
import { GuardedPublisher, type GuardedPublisherOptions } from '../refusal-guard.js';
import { InstallationStore } from './installation-store.js';
import { dryRunPort } from './dry-run-port.js';
import { DeploymentLookups } from './deployment-lookups.js';
import { createGitHubSide, type GitHubAuth } from './github-client.js';
import { GitHubPublisher, type GitHubPublishResult } from './github-publisher.js';
import { toGitHubState } from './github-states.js';
import { DeploymentDeleted, githubRefusalOf } from './refusal-classify.js';
import { GITHUB_MIGRATIONS } from './github-migrations.js';

/** What routing to GitHub needs (`explain` too). */
export interface GitHubReporting {
  /** The web host repository URLs name (`github.com`, or the GHES host). */
  githubHost: string;
}

/** The settings GitHub is built from (`GITHUB_*`, see config/settings.ts). */
export interface GitHubSettings extends GitHubReporting {
  /** Unset: GitHub is not configured. */
  githubAuth?: GitHubAuth | undefined;
  githubApiUrl: string;
  githubWriteIntervalMs: number;
  /** `GITHUB_BATCHED_LOOKUPS`: look-ups of many new targets at once go out as GraphQL batches (default true). */
  githubBatchedLookups?: boolean;
  /** `GITHUB_WRITE_BUDGET`: the sliding windows of writes per credential scope. */
  githubWriteBudget: BudgetWindow[];
}

/** GitHub's refusal rules: its classifier for the auth kind; a deployment deleted by a person is published again. */
const githubRefusal = (auth: 'token' | 'app') => ({
  classify: (err: unknown, target: ReportTarget, at: number) => githubRefusalOf(err, target, auth, at),
  deletedOf: (err: unknown) => (err instanceof DeploymentDeleted ? err : undefined),
});

/** GitHub's publisher behind its refusal guard, as the assembled forge has it. */
export function guardGitHub<R>(
  o: Omit<GuardedPublisherOptions<R>, 'classify' | 'forge' | 'deletedOf'> & { auth: 'token' | 'app' },
): GuardedPublisher<R> {
  const { auth, ...rest } = o;
  return new GuardedPublisher({ ...rest, ...githubRefusal(auth), forge: 'GitHub' });
}

/** GitHub's lane: its guarded publisher for publishing, the plain one for cleanup; a publish counts its supersessions. */
export function githubLane(guarded: Pick<GuardedPublisher<GitHubPublishResult>, 'publish'>, plain: Pick<Forge, 'retire'>) {
  return laneOf(guarded, plain, (r) => ({ sent: r.sent, superseded: r.superseded.length }));
}

const NO_CREDENTIALS = 'no GitHub credentials are set (GITHUB_TOKEN or a GitHub App)';

export const githubForge: ForgeDriver<GitHubSettings, GitHubReporting, typeof GITHUB_REPORTING, typeof GITHUB_SERVICE> = {
  name: 'github',
  title: 'GitHub',
  reports: 'GitHub Deployments',
  settings: { reporting: GITHUB_REPORTING, service: GITHUB_SERVICE },
  configuredBy: [
    'GITHUB_TOKEN',
    'GITHUB_TOKEN_FILE',
    'GITHUB_APP_ID',
    'GITHUB_APP_PRIVATE_KEY',
    'GITHUB_APP_PRIVATE_KEY_PATH',
    'GITHUB_APP_INSTALLATION_ID',
  ],
  howToConfigure: `GitHub (GITHUB_TOKEN with Deployments read & write on the reported repositories, or ${GITHUB_APP})`,
  // GitHub's host is always known (github.com by default): without credentials it says why nothing goes there.
  host: (s, credentials) => ({ forge: 'github', host: s.githubHost, ...(credentials ? {} : { disabled: NO_CREDENTIALS }) }),
  configuredIn: (env) => Boolean(env.GITHUB_TOKEN?.trim() || env.GITHUB_APP_ID?.trim()),
  explain: (_s, t) => ({
    where: `${explainCommit(t)} environment ${t.environment}${t.task ? ` task ${t.task}` : ''}`,
    urlField: 'environment_url',
  }),
  url: (s) => (s.githubAuth ? { setting: 'GITHUB_API_URL', url: s.githubApiUrl } : undefined),
  migrations: GITHUB_MIGRATIONS,
  connect(s, d): ForgeConnection<DeploymentsPort, GitHubPublishResult> | undefined {
    if (s.githubAuth === undefined) return undefined;
    const auth = s.githubAuth;
    const { deployments, log, now } = d;
    const side = createGitHubSide({
      auth,
      baseUrl: s.githubApiUrl,
      userAgent: d.userAgent,
      metrics: d.metrics,
      log: log.child({ component: 'github' }),
      now,
      monotonic: monotonicNow,
      installations: new InstallationStore(d.db),
      writeIntervalMs: s.githubWriteIntervalMs,
      writeBudget: s.githubWriteBudget,
    });
    const batched = s.githubBatchedLookups !== false;
    let lookups: DeploymentLookups | undefined;
    const budget = side.budget;
    const writeBudget = budget && { view: (at: number) => backlogState(budget, at) };
    return {
      ...side,
      dryRun: dryRunPort,
      publisher(github, onSent) {
        const query = batched ? github.queryDeployments?.bind(github) : undefined;
        lookups = query && new DeploymentLookups({ query, log: log.child({ component: 'github' }), now });
        return new GitHubPublisher({ github, ...(lookups ? { lookups } : {}), deployments, log, now, onSent });
      },
      count: (r) => ({ sent: r.sent, superseded: r.superseded.length }),
      refusal: githubRefusal(auth.kind),
      // Its state in GitHub's words, as GitHub shows it (`inactive`); its link: the environment's deployments.
      describe: (row) => ({
        deploymentId: row.deploymentId,
        forgeState: row.state === null ? 'provisional' : toGitHubState(row.state),
        url: `https://${s.githubHost}/${repoWebPath(row)}/deployments/${encodeURIComponent(row.environment)}`,
      }),
      ...(writeBudget ? { writeBudget } : {}),
      stateHead: { auth: auth.kind },
      own: () => ({
        budgets: budgetState(side.health),
        writeBudget: writeBudget ? writeBudget.view(now()) : null,
        ...(lookups ? { batchedLookups: lookups.state() } : {}),
      }),
      scrape: () => budget && scrapeBacklog(d.metrics, 'github', budget, now()),
      summary: { api: s.githubApiUrl, auth: auth.kind },
      stop: () => lookups?.stop(),
    };
  },
};
