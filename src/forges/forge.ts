/**
 * The forge seam: what the reconcile, the cleanup, /state, /metrics, readiness and the start need of a
 * forge, and nothing else. Each forge lives in its own folder (`forges/<name>/`: settings, client,
 * publisher, refusal classification, wire words ↔ neutral states, dry run) and hands the rest of the
 * bridge one `Forge`, assembled from its `ForgeDriver` (forge-driver.ts) by `assemble-forge.ts`; the drivers are
 * listed once in `registry.ts`.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../common/metrics.js';
import type { DesiredState } from '../lifecycle/status-plan.js';
import type { ForgeName } from '../lifecycle/identity.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { Db } from '../store/database.js';
import type { DeploymentRow, DeploymentStore, Origin } from '../store/deployment-store.js';
import type { RefusalStore } from '../store/refusal-store.js';
import type { CommentsPort } from './comments-port.js';
import type { CommitTimesPort } from './commit-times-port.js';
import type { ForgeHealth } from './forge-health.js';

/** What one publish sent, on any forge: the states (in the words of the deployments table) and supersessions. */
export interface ForgePublished {
  sent: readonly string[];
  /** Older deployments this publish ended (a forge that keeps older ones as history ends none). */
  superseded: number;
}

/**
 * A row's forge-specific fields in /state and on the status page: its deployment id or its status context,
 * its state in the forge's own words (`forgeState`: GitHub's `inactive`, GitLab's `canceled`; the row's
 * `state` is the neutral word metrics use too), and the forge's page for it, when the forge has one.
 */
export interface RowView {
  deploymentId?: number | null;
  context?: string | null;
  forgeState: string;
  url?: string;
}

/** A repository's path in a forge's web URLs, each segment escaped (GitLab's groups nest: `group/sub/project`). */
export const repoWebPath = (row: { owner: string; repo: string }): string =>
  `${row.owner}/${row.repo}`.split('/').map(encodeURIComponent).join('/');

/** What publishes to a forge, one target at a time (its answer `R`), and optionally looks ahead for several. */
export interface Publishes<R> {
  publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<R>;
  /** Before a reconcile's publishes: the look-ups they need, asked together (Forgejo: one read per commit); never throws. */
  prepare?(targets: readonly ReportTarget[]): Promise<void>;
}

/** One configured forge, as the rest of the bridge uses it. */
export interface Forge extends Publishes<ForgePublished> {
  /** The `forge` field of targets and rows, the `forge` label of metrics, its key in /state: `github`. */
  readonly name: ForgeName;
  /** How people read its name in messages: `GitHub`. */
  readonly title: string;
  /** Its credentials, pauses and outages (readiness, the worker's pause, /state and /metrics read it). */
  readonly health: ForgeHealth;
  /**
   * Brings the forge to the desired state for one target, crash-safely, behind its refusal guard: an answer
   * that retrying will not change arrives as RefusedByForge. Under DRY_RUN the forge's writes are logged, not sent.
   */
  publish(target: ReportTarget, origin: Origin, desired: DesiredState, description: string): Promise<ForgePublished>;
  /** Its pull request comments (GitHub and Forgejo: issue comments; GitLab: merge request notes). */
  readonly comments?: CommentsPort;
  /** Its commits' times (the DORA lead time), read once per commit. */
  readonly commits?: CommitTimesPort;
  /** Its write budget and what waits for it (GitHub's `GITHUB_WRITE_BUDGET`), for the status page. */
  readonly writeBudget?: WriteBudgetPort;
  /** Ends one row whose workload is gone (cleanup; not guarded); false when nothing was left to end. */
  retire(row: DeploymentRow, description: string): Promise<boolean>;
  /** Starts the credential checks; resolves when the first is answered. */
  start(): Promise<void>;
  stop(): void;
  /** Its section of /state (credentials, pauses, refusals and what is its own). */
  state(): Record<string, unknown>;
  /** The row's forge-specific fields for /state: its deployment id or status context, its state as the forge says it, its link. */
  describe(row: DeploymentRow): RowView;
  /** Sets its gauges (paused until, credentials) just before a scrape. */
  scrape(): void;
  /** What the start's log line says about it. */
  readonly summary: Record<string, unknown>;
}

/** A write budget and, per credential scope, what waits for its turn (GitHub's; /state's `writeBudget`). */
export interface WriteBudgetView {
  /** The budget as configured: `80/1m,500/1h`. */
  budget: string;
  scopes: Array<{
    scope: string;
    waiting: number;
    oldestWaitingSince: string | null;
    oldestWaitingSeconds: number;
    budgetFreesAt: string | null;
    drainsInSeconds: number;
  }>;
}

/** A forge's write budget, read at a time. */
export interface WriteBudgetPort {
  view(now: number): WriteBudgetView;
}

/** How `explain` names a target on its forge: what it would write (`acme/web@… environment staging`), and the link's field. */
export interface ExplainForm {
  where: string;
  urlField: string;
}

/** A target's repository and commit as `explain` prints them. */
export const explainCommit = (t: ReportTarget): string => `${t.owner}/${t.repo}@${t.sha.slice(0, 12)}`;

/** What every forge is built from, besides its own settings. */
export interface ForgeDeps {
  db: Db;
  deployments: DeploymentStore;
  refusals: RefusalStore;
  metrics: Metrics;
  log: Logger;
  now: () => number;
  userAgent: string;
  /** DRY_RUN: reads go to the forge, writes are logged instead of sent. */
  dryRun: boolean;
}

/** A forge's guarded publisher and its plain one (cleanup), as the forge's lane; `count` turns the result into what was sent. */
export function laneOf<R>(
  guarded: Publishes<R>,
  plain: Pick<Forge, 'retire'>,
  count: (result: R) => ForgePublished,
): Pick<Forge, 'publish' | 'retire' | 'prepare'> {
  return {
    publish: async (target, origin, desired, description) => count(await guarded.publish(target, origin, desired, description)),
    ...(guarded.prepare ? { prepare: guarded.prepare.bind(guarded) } : {}),
    retire: (row, description) => plain.retire(row, description),
  };
}
