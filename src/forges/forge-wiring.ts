import { secretValue } from '../config/rotating-secret.js';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { Metrics } from '../common/metrics.js';
import { Publisher } from '../reconcile/deployment-publisher.js';
import { ForgeRouter, githubLane, laneOf, type ForgeLane } from '../reconcile/forge-router.js';
import { GuardedPublisher } from '../reconcile/refusal-guard.js';
import { CommitStatusRows } from '../store/commit-status-rows.js';
import type { Db } from '../store/database.js';
import type { DeploymentStore } from '../store/deployment-store.js';
import { InstallationStore } from '../store/installation-store.js';
import type { RefusalStore } from '../store/refusal-store.js';
import { CommitStatusPublisher } from './forgejo/commit-status-publisher.js';
import { forgejoDryRunPort } from './forgejo/forgejo-dry-run.js';
import { ForgejoPublisher } from './forgejo/forgejo-publisher.js';
import { forgejoRefusalOf } from './forgejo/forgejo-refusal.js';
import { createForgejoSide, type ForgejoSide } from './forgejo/forgejo-side.js';
import { dryRunPort } from './github/dry-run-port.js';
import { createGitHubSide, type GitHubSide } from './github/github-client.js';
import type { GitHubHealth } from './github/github-health.js';
import type { CredentialMonitor } from './github/credential-check.js';

export interface ForgeWiringDeps {
  config: Config;
  db: Db;
  deployments: DeploymentStore;
  refusals: RefusalStore;
  metrics: Metrics;
  log: Logger;
  now: () => number;
  userAgent: string;
}

/**
 * How long the start waits for the first credential checks before the worker may spend forge requests: a
 * rejected key pauses its forge before the first reconcile asks anything with it.
 */
export const FIRST_CHECK_WAIT_MS = 5_000;

/** The configured forges as the rest of the bridge uses them. */
export interface Forges {
  router: ForgeRouter;
  github?: GitHubSide;
  forgejo?: ForgejoSide;
  /** Every configured forge's health tracker (readiness reads them all). */
  healths: GitHubHealth[];
  /** Until when every configured forge is paused (credentials rejected: nothing could be written), else null. */
  pausedUntil(): number | null;
  /**
   * Starts the credential checks; resolves when each first check is answered, or after
   * FIRST_CHECK_WAIT_MS (a forge that does not answer does not hold the bridge back).
   */
  start(): Promise<void>;
  stop(): void;
}

/**
 * Builds each configured forge: GitHub (deployments) when credentials are set, Forgejo (commit
 * statuses) when `FORGEJO_URL` is; each behind its own refusal guard, health tracker and credential
 * check, and both behind one router that the reconcile and the cleanup use.
 */
export function buildForges(d: ForgeWiringDeps): Forges {
  const { config, deployments, refusals, log, now } = d;
  const lanes: Partial<Record<'github' | 'forgejo', ForgeLane>> = {};
  const monitors: CredentialMonitor[] = [];
  const out: Omit<Forges, 'router' | 'pausedUntil' | 'start' | 'stop'> = { healths: [] };

  if (config.githubAuth !== undefined) {
    const github = createGitHubSide({
      auth: config.githubAuth,
      baseUrl: config.githubApiUrl,
      userAgent: d.userAgent,
      metrics: d.metrics,
      log: log.child({ component: 'github' }),
      now,
      installations: new InstallationStore(d.db),
      writeIntervalMs: config.githubWriteIntervalMs,
    });
    const plain = new Publisher({ github: config.dryRun ? dryRunPort(github.port, log) : github.port, deployments, log, now });
    const guarded = new GuardedPublisher({ publisher: plain, refusals, deployments, auth: config.githubAuth.kind, log, now });
    lanes.github = githubLane(guarded, plain);
    out.github = github;
    out.healths.push(github.health);
    monitors.push(github.monitor);
  }

  if (config.forgejoUrl !== undefined && config.forgejoToken !== undefined) {
    const forgejo = createForgejoSide({
      location: config.forgejoUrl,
      token: secretValue(config.forgejoToken),
      userAgent: d.userAgent,
      metrics: d.metrics,
      log: log.child({ component: 'forgejo' }),
      now,
    });
    const statuses = new CommitStatusPublisher({
      forge: config.dryRun ? forgejoDryRunPort(forgejo.port, log) : forgejo.port,
      store: new CommitStatusRows(d.db),
      log,
      now,
    });
    const plain = new ForgejoPublisher({ statuses, deployments, template: config.forgejoStatusContext, log, now });
    const guarded = new GuardedPublisher({
      publisher: plain,
      refusals,
      deployments,
      auth: 'token',
      classify: forgejoRefusalOf,
      forgeName: 'Forgejo',
      log,
      now,
    });
    lanes.forgejo = laneOf(guarded, plain, (r) => ({ sent: r.sent, superseded: 0 }));
    out.forgejo = forgejo;
    out.healths.push(forgejo.health);
    monitors.push(forgejo.monitor);
  }

  return {
    ...out,
    router: new ForgeRouter(lanes, log),
    pausedUntil() {
      const until = out.healths.map((h) => h.pausedUntil());
      return until.length === 0 || until.some((u) => u === null) ? null : Math.min(...(until as number[]));
    },
    async start() {
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_CHECK_WAIT_MS)));
      await Promise.race([Promise.all(monitors.map((m) => m.start())), cap]);
      clearTimeout(timer);
    },
    stop: () => monitors.forEach((m) => m.stop()),
  };
}
