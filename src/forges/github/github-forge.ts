/**
 * GitHub as a forge: Deployments and deployment statuses, with a token or a GitHub App. Builds its client,
 * health and credential check (`createGitHubSide`), its publisher behind its refusal guard, its dry run,
 * and its parts of /state, /metrics and routing.
 */
import type { Forge, ForgeFactory } from '../forge.js';
import { explainCommit, laneOf } from '../forge.js';
import { budgetState, forgeHealthState } from '../forge-state.js';
import { GuardedPublisher, type GuardedPublisherOptions } from '../refusal-guard.js';
import { InstallationStore } from '../../store/installation-store.js';
import { dryRunPort } from './dry-run-port.js';
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
      installations: new InstallationStore(d.db),
      writeIntervalMs: s.githubWriteIntervalMs,
    });
    const plain = new GitHubPublisher({ github: d.dryRun ? dryRunPort(side.port, log) : side.port, deployments, log, now });
    const guarded = guardGitHub({ publisher: plain, refusals, deployments, auth: auth.kind, log, now });
    const health = side.health;
    return {
      name: 'github',
      title: 'GitHub',
      health,
      ...githubLane(guarded, plain),
      comments: side.comments,
      start: () => side.monitor.start(),
      stop: () => side.monitor.stop(),
      state: () => ({ auth: auth.kind, ...forgeHealthState(health, refusals, 'github', now()), budgets: budgetState(health) }),
      // Its state in GitHub's words, as GitHub shows it (`inactive`).
      describe: (row) => ({ deploymentId: row.deploymentId, state: row.state === null ? 'provisional' : toGitHubState(row.state) }),
      scrape() {
        const h = health.snapshot();
        const m = d.metrics;
        m.githubPausedUntil.reset();
        m.githubPausedUntil.set({ scope: 'all' }, h.pause === null ? 0 : Math.ceil(h.pause.until / 1000));
        for (const p of h.pauses) m.githubPausedUntil.set({ scope: p.scope ?? 'all' }, Math.ceil(p.until / 1000));
        m.githubCredentialsOk.set(h.credentials.state === 'rejected' ? 0 : 1);
        m.githubRemaining.reset();
        for (const b of h.budgets) m.githubRemaining.set({ scope: b.scope, resource: b.resource }, b.remaining);
      },
      summary: { api: s.githubApiUrl, auth: auth.kind },
    };
  },
};
