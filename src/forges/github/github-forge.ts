/**
 * GitHub as a forge: Deployments and deployment statuses, with a token or a GitHub App. Builds its client,
 * health and credential check (`createGitHubSide`), its publisher behind its refusal guard, its dry run,
 * and its parts of /state, /metrics and routing.
 */
import { monotonicNow } from '../../common/timers.js';
import type { Forge, ForgeFactory } from '../forge.js';
import { explainCommit, laneOf, repoWebPath } from '../forge.js';
import { forgeGauges, statusCounter } from '../forge-metrics.js';
import type { BudgetWindow } from '../write-budget.js';
import { backlogState, budgetState, forgeHealthState, scrapeBacklog } from '../forge-state.js';
import { GuardedPublisher, type GuardedPublisherOptions } from '../refusal-guard.js';
import { InstallationStore } from './installation-store.js';
import { dryRunPort } from './dry-run-port.js';
import { DeploymentLookups } from './deployment-lookups.js';
import { createGitHubSide, type GitHubAuth } from './github-client.js';
import { GitHubPublisher, type GitHubPublishResult } from './github-publisher.js';
import { toGitHubState } from './github-states.js';
import { DeploymentDeleted, githubRefusalOf } from './refusal-classify.js';

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

/** GitHub's publisher behind its refusal guard: GitHub's classifier for the auth kind; a deployment deleted by a person is published again. */
export function guardGitHub<R>(
  o: Omit<GuardedPublisherOptions<R>, 'classify' | 'forge' | 'deletedOf'> & { auth: 'token' | 'app' },
): GuardedPublisher<R> {
  const { auth, ...rest } = o;
  return new GuardedPublisher({
    ...rest,
    classify: (err, target, at) => githubRefusalOf(err, target, auth, at),
    forge: 'GitHub',
    deletedOf: (err) => (err instanceof DeploymentDeleted ? err : undefined),
  });
}

/** GitHub's lane: its guarded publisher for publishing, the plain one for cleanup; a publish counts its supersessions. */
export function githubLane(guarded: Pick<GuardedPublisher<GitHubPublishResult>, 'publish'>, plain: Pick<Forge, 'retire'>) {
  return laneOf(guarded, plain, (r) => ({ sent: r.sent, superseded: r.superseded.length }));
}

const NO_CREDENTIALS = 'no GitHub credentials are set (GITHUB_TOKEN or a GitHub App)';

export const githubForge: ForgeFactory<GitHubSettings, GitHubReporting> = {
  name: 'github',
  reports: 'GitHub Deployments',
  // GitHub's host is always known (github.com by default): without credentials it says why nothing goes there.
  host: (s, credentials) => ({ forge: 'github', host: s.githubHost, ...(credentials ? {} : { disabled: NO_CREDENTIALS }) }),
  configuredIn: (env) => Boolean(env.GITHUB_TOKEN?.trim() || env.GITHUB_APP_ID?.trim()),
  explain: (_s, t) => ({
    where: `${explainCommit(t)} environment ${t.environment}${t.task ? ` task ${t.task}` : ''}`,
    urlField: 'environment_url',
  }),
  build(s, d): Forge | undefined {
    if (s.githubAuth === undefined) return undefined;
    const auth = s.githubAuth;
    const { deployments, refusals, log, now } = d;
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
    const github = d.dryRun ? dryRunPort(side.port, log) : side.port;
    const query = s.githubBatchedLookups === false ? undefined : github.queryDeployments?.bind(github);
    const lookups = query && new DeploymentLookups({ query, log: log.child({ component: 'github' }), now });
    const plain = new GitHubPublisher({
      github,
      ...(lookups ? { lookups } : {}),
      deployments,
      log,
      now,
      onSent: statusCounter(d, 'github'),
    });
    const guarded = guardGitHub({ publisher: plain, refusals, deployments, auth: auth.kind, log, now });
    const health = side.health;
    const gauges = forgeGauges(d.metrics, 'github', health);
    return {
      name: 'github',
      title: 'GitHub',
      health,
      ...githubLane(guarded, plain),
      comments: side.comments,
      commits: side.commits,
      start: () => side.monitor.start(),
      stop: () => {
        side.monitor.stop();
        lookups?.stop();
      },
      state: () => ({
        auth: auth.kind,
        ...forgeHealthState(health, refusals, 'github', now()),
        budgets: budgetState(health),
        writeBudget: backlogState(side.budget, now()),
        ...(lookups ? { batchedLookups: lookups.state() } : {}),
      }),
      // Its state in GitHub's words, as GitHub shows it (`inactive`); its link: the environment's deployments.
      describe: (row) => ({
        deploymentId: row.deploymentId,
        forgeState: row.state === null ? 'provisional' : toGitHubState(row.state),
        url: `https://${s.githubHost}/${repoWebPath(row)}/deployments/${encodeURIComponent(row.environment)}`,
      }),
      scrape() {
        gauges();
        scrapeBacklog(d.metrics, 'github', side.budget, now());
      },
      summary: { api: s.githubApiUrl, auth: auth.kind },
    };
  },
};
