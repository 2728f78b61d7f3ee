import { githubLane, guardGitHub } from '../../src/forges/github/github-forge.js';
/**
 * The reconcile in one process: the real executor, GitHubPublisher and refusal guard and the SQLite stores
 * (on ':memory:'), behind in-memory fakes of Kubernetes, the registries and GitHub, with a clock the
 * test moves. Flux objects and workloads come from the harness builders, as the API would serve them.
 */
import type { Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../src/common/metrics.js';
import { GitHubPublisher } from '../../src/forges/github/github-publisher.js';
import { reconcileSource, type ReconcileDeps, type ReconcileOutcome } from '../../src/reconcile/reconcile-source.js';
import { ForgeRouter } from '../../src/reconcile/forge-router.js';
import { AbsenceStore } from '../../src/store/absence-store.js';
import { type Db } from '../../src/store/database.js';
import type { PullRequestComments } from '../../src/features/comments/pr-comments.js';
import { commentHooks } from '../../src/features/comments/comments-feature.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { commitOf } from '../harness/kube-meta.js';
import { deployment, kustomization, type ConditionSpec, type DeploymentOptions } from '../harness/flux-objects.js';
import { MemoryGitHub, MemoryKube, MemoryRegistry } from './in-memory.js';
import { openDatabase } from '../harness/database.js';

export const SOURCE = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'apps' };
export const GRACE_MS = 15_000;
export const OPT_IN = { 'github-deployment-bridge.io/auto-report': 'true' };

export const READY: ConditionSpec = { ready: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision: main@sha1:0123abc' };
export const PROGRESSING: ConditionSpec = { ready: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress' };
export const FAILED: ConditionSpec = {
  ready: 'False',
  reason: 'ReconciliationFailed',
  message: 'apply failed: admission webhook denied it',
};

export const sha = (seed: string) => commitOf(seed);

export interface ReconcileRig {
  kube: MemoryKube;
  registry: MemoryRegistry;
  github: MemoryGitHub;
  deployments: DeploymentStore;
  sources: SourceStore;
  refusals: RefusalStore;
  clock: { now: number };
  /** One reconcile of SOURCE. */
  reconcile(): Promise<ReconcileOutcome>;
  /** Puts SOURCE with the given Ready condition and Deployments `apps/<name>` as its inventory. */
  source(conditions: ConditionSpec, workloads: string[]): void;
  /** Puts an opted-in Deployment `apps/<name>` whose image is labelled with github.com/acme/<name> at `commit`. */
  workload(name: string, commit: string, o?: Partial<DeploymentOptions>): void;
}

export function startReconcileRig(t: Test, o: { comments?: (db: Db) => PullRequestComments } = {}): ReconcileRig {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const clock = { now: Date.UTC(2025, 0, 1) };
  const now = () => clock.now;
  const log = pino({ level: 'silent' });
  const kube = new MemoryKube();
  const registry = new MemoryRegistry();
  const github = new MemoryGitHub();
  const deployments = new DeploymentStore(db);
  const sources = new SourceStore(db);
  const refusals = new RefusalStore(db);
  const publisher = new GitHubPublisher({ github, deployments, log, now });
  const deps: ReconcileDeps = {
    kube,
    images: registry,
    defaults: {
      cluster: 'test',
      environment: 'staging',
      description: 'Deployed by Flux',
      forges: [{ forge: 'github', host: 'github.com' }],
      controllerVersion: '0.0.0',
    },
    metrics: createMetrics(),
    publisher: new ForgeRouter(
      { github: githubLane(guardGitHub({ publisher, refusals, deployments, auth: 'token', log, now }), publisher) },
      log,
    ),
    cleanup: { deployments, absences: new AbsenceStore(db), publisher, graceMs: GRACE_MS, log },
    sources,
    log,
    now,
  };
  if (o.comments) {
    const hooks = [commentHooks(o.comments(db))];
    deps.hooks = hooks;
    deps.cleanup.hooks = hooks;
  }
  return {
    kube,
    registry,
    github,
    deployments,
    sources,
    refusals,
    clock,
    reconcile: () => reconcileSource(deps, SOURCE),
    source(conditions, workloads) {
      const inventory = workloads.map((name) => ({ namespace: 'apps', name, group: 'apps', kind: 'Deployment' }));
      kube.put(kustomization({ ...SOURCE, conditions, inventory }));
    },
    workload(name, commit, o = {}) {
      const image = `ghcr.io/acme/${name}:${commit.slice(0, 7)}`;
      registry.labels.set(image, {
        'org.opencontainers.image.source': `https://github.com/acme/${name}`,
        'org.opencontainers.image.revision': commit,
      });
      kube.put(deployment({ namespace: 'apps', name, annotations: OPT_IN, containers: [{ name: 'app', image }], ...o }));
    },
  };
}
