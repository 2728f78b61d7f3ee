import { guardGitHub } from '../../../src/forges/github/github-forge.js';
/**
 * The real GitHub side (octokit clients, health, credential check, publisher behind the refusal
 * guard, SQLite stores) against the GitHub simulator, with a clock the test moves: pauses and late
 * retries are crossed without waiting. Writes are not spaced (the throttler's 1 s), all else is as
 * in production.
 */
import { createHash } from 'node:crypto';
import type { BudgetWindow } from '../../../src/forges/github/write-budget.js';
import type { Test } from 'tap';
import { pino, type Logger } from 'pino';
import { createGitHubSide, type GitHubAuth, type GitHubSide } from '../../../src/forges/github/github-client.js';
import type { DesiredState } from '../../../src/lifecycle/status-plan.js';
import { resolveTarget, type ReportTarget } from '../../../src/metadata/resolve-target.js';
import { createMetrics, type Metrics } from '../../../src/common/metrics.js';
import { GitHubPublisher, type GitHubPublishResult } from '../../../src/forges/github/github-publisher.js';
import { RefusedByForge } from '../../../src/forges/refusal-guard.js';
import { type Db } from '../../../src/store/database.js';
import { DeploymentStore, type Origin } from '../../../src/store/deployment-store.js';
import { InstallationStore } from '../../../src/forges/github/installation-store.js';
import { RefusalStore } from '../../../src/store/refusal-store.js';
import { startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions, type SimDeployment } from '../../harness/github-sim.js';
import { openDatabase } from '../../harness/database.js';

export const TOKEN = 'ghs_rig_token';
export const OWNER = 'acme';
export const REPO = 'shop';
export const sha = (seed: string) => createHash('sha1').update(seed).digest('hex');

const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'shop' };
const workload = { kind: 'Deployment', namespace: 'shop', name: 'shop' };

/** A staging target of `owner/repo` at `commit`, as the reconcile would resolve it. */
export function target(commit: string, repo = `${OWNER}/${REPO}`): { target: ReportTarget; origin: Origin } {
  const image = `ghcr.io/${repo}:${commit.slice(0, 7)}`;
  const r = resolveTarget(
    source,
    { ...workload, annotations: {}, containers: [{ name: 'app', image }] },
    { name: 'app', image },
    { labels: { 'org.opencontainers.image.source': `https://github.com/${repo}`, 'org.opencontainers.image.revision': commit } },
    {
      cluster: 'eu-1',
      environment: 'staging',
      description: 'Flux',
      forges: [{ forge: 'github', host: 'github.com' }],
      controllerVersion: '0.1.0',
    },
  );
  if (!('target' in r)) throw new Error(r.skip);
  return { target: r.target, origin: { source, workload, container: 'app', image } };
}

/** What one attempt did, as the worker would see it. */
export type Attempt = { ok: GitHubPublishResult } | { retry: Error } | { refused: RefusedByForge };

export interface Rig {
  sim: GitHubSimulator;
  side: GitHubSide;
  db: Db;
  deployments: DeploymentStore;
  refusals: RefusalStore;
  metrics: Metrics;
  clock: { now: number };
  /** One publish through the guard, errors sorted like the reconcile does. */
  attempt(t: { target: ReportTarget; origin: Origin }, desired: DesiredState): Promise<Attempt>;
  /** Client statuses of every deployment of the repository, oldest first. */
  trail(repo?: string): string[][];
}

export async function startRig(
  t: Test,
  o: { sim?: GitHubSimulatorOptions; auth?: GitHubAuth; timeoutMs?: number; writeBudget?: BudgetWindow[]; log?: Logger } = {},
): Promise<Rig> {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], ...o.sim });
  const db = openDatabase(':memory:');
  t.teardown(async () => {
    side.monitor.stop();
    db.close();
    await sim.close();
  });
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const log = o.log ?? pino({ level: 'silent' });
  const metrics = createMetrics();
  const auth = o.auth ?? { kind: 'token', token: TOKEN };
  const side = createGitHubSide({
    auth,
    baseUrl: sim.url,
    userAgent: 'gdb-test',
    metrics,
    log,
    now,
    installations: new InstallationStore(db),
    spaceWrites: false,
    ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    ...(o.writeBudget === undefined ? {} : { writeBudget: o.writeBudget }),
  });
  const deployments = new DeploymentStore(db);
  const refusals = new RefusalStore(db);
  const guarded = guardGitHub({
    publisher: new GitHubPublisher({ github: side.port, deployments, log, now }),
    refusals,
    deployments,
    auth: auth.kind,
    log,
    now,
  });
  return {
    sim,
    side,
    db,
    deployments,
    refusals,
    metrics,
    clock,
    async attempt(x, desired) {
      try {
        return { ok: await guarded.publish(x.target, x.origin, desired, 'ReconciliationSucceeded') };
      } catch (err) {
        if (err instanceof RefusedByForge) return { refused: err };
        return { retry: err as Error };
      }
    },
    trail(repo = `${OWNER}/${REPO}`) {
      const [owner = '', name = ''] = repo.split('/');
      return sim.deployments(owner, name).map((d: SimDeployment) => d.statuses.filter((s) => s.addedBy === 'client').map((s) => s.state));
    },
  };
}

/** The requests the simulator saw, as `METHOD kind status`, kind one of list, create, listStatuses, status, rate_limit, app, installation, token. */
export function requestLog(sim: GitHubSimulator, from = 0): string[] {
  return sim.requests.slice(from).map((r) => {
    const kind =
      r.path === '/rate_limit'
        ? 'rate_limit'
        : r.path === '/app'
          ? 'app'
          : /\/installation$/.test(r.path)
            ? 'installation'
            : /access_tokens$/.test(r.path)
              ? 'token'
              : /\/statuses$/.test(r.path)
                ? r.method === 'GET'
                  ? 'listStatuses'
                  : 'status'
                : r.method === 'GET'
                  ? 'list'
                  : 'create';
    return `${kind} ${r.status ?? 'none'}`;
  });
}
