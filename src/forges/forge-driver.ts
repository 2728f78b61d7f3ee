/**
 * A forge's driver: what only that forge knows, declared once in its folder and listed once in `registry.ts`.
 * Its settings tables, where it lives and how `explain` names a target, and a connect step giving its client's
 * health and credential check, its publisher over its port, its refusal classifier, its dry run, its wire words
 * (`describe`) and its optional typed ports. Everything every forge has alike (the refusal guard, the dry run
 * switch, the /state section, the gauges, start and stop) is built from it once, by `assemble-forge.ts`.
 */
import type { Logger } from 'pino';
import type { Schema } from '../common/settings-schema.js';
import type { ForgeName } from '../lifecycle/identity.js';
import type { DeliveryState } from '../lifecycle/status-plan.js';
import type { ForgeHost } from '../metadata/forge-route.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { DeploymentRow } from '../store/deployment-store.js';
import type { Migration } from '../store/migrations.js';
import type { CommentsPort } from './comments-port.js';
import type { CommitTimesPort } from './commit-times-port.js';
import type { CredentialMonitor } from './credential-monitor.js';
import type { ExplainForm, ForgeDeps, ForgePublished, Publishes, RowView, WriteBudgetPort } from './forge.js';
import type { ForgeHealth } from './forge-health.js';
import type { GuardedPublisherOptions } from './refusal-guard.js';

/** A forge's settings tables (`common/settings-schema.ts`): what shapes a report (`explain` reads it too), and the server's own. */
export interface ForgeSettingsTables<RT extends Schema = Schema, ST extends Schema = Schema> {
  readonly reporting: RT;
  readonly service: ST;
}

/** A forge's own publisher, unguarded: its `publish` (the core puts it behind the refusal guard) and its cleanup. */
export interface DriverPublisher<Res> extends Publishes<Res> {
  retire(row: DeploymentRow, description: string): Promise<boolean>;
}

/** What a forge's connect step gives: its client (health, credential check, port) and what only it knows of writing there. */
export interface ForgeConnection<P = unknown, Res = unknown> {
  /** Its client's health and credential check (`token-side.ts` builds both for a token forge). */
  health: ForgeHealth;
  monitor: Pick<CredentialMonitor, 'start' | 'stop'>;
  /** The port its publisher writes through; under DRY_RUN the core hands the publisher `dryRun(port)` instead. */
  port: P;
  /** The port with its writes logged instead of sent (reads still go to the forge). */
  dryRun(port: P, log: Logger): P;
  /** Its publisher over the port; `onSent` counts each status the forge accepted (`gdb_statuses_sent_total`). */
  publisher(port: P, onSent: (state: DeliveryState) => void): DriverPublisher<Res>;
  /** What one publish sent and how many older deployments it ended. */
  count(result: Res): ForgePublished;
  /** Its refusal classifier and guard rules (what keeps a provisional row, a deployment a person deleted). */
  refusal: Pick<GuardedPublisherOptions<Res>, 'classify' | 'keepsProvisional' | 'deletedOf'>;
  /** A row's fields in its own words (`deploymentId` or `context`, `forgeState`, its page on the forge). */
  describe(row: DeploymentRow): RowView;
  comments?: CommentsPort;
  commits?: CommitTimesPort;
  writeBudget?: WriteBudgetPort;
  /** Its /state fields before the shared ones (`auth`, `url`), and after them (`own()`). */
  stateHead: Record<string, unknown>;
  own?(): Record<string, unknown>;
  /** Its own gauges, set just before a scrape after the shared ones. */
  scrape?(): void;
  /** What the start's log line says about it. */
  summary: Record<string, unknown>;
  /** Stops what it runs besides the credential check. */
  stop?(): void;
}

/**
 * One forge, as its folder exports it. `S`: the settings it is built from; `R`: those routing and `explain` read;
 * `RT`/`ST`: its settings tables (their parsed values satisfy `R` and `S`).
 */
export interface ForgeDriver<S extends R, R = S, RT extends Schema = Schema, ST extends Schema = Schema> {
  /** The `forge` field of targets and rows, the `forge` label of metrics, its key in /state: `github`. */
  readonly name: ForgeName;
  /** How people read its name in messages: `GitHub`. */
  readonly title: string;
  /** What the bridge makes of a reconcile there, for `--help`: `GitHub Deployments`. */
  readonly reports: string;
  readonly settings: ForgeSettingsTables<RT, ST>;
  /**
   * The variables any of which says the environment configures this forge, even half (its own settings say what is
   * missing); when none of any forge's is set, no forge is configured (`registry.ts`).
   */
  readonly configuredBy: readonly string[];
  /** How to configure it, for the problem saying no forge is: `GitLab (GITLAB_URL with GITLAB_TOKEN)`. */
  readonly howToConfigure: string;
  /**
   * Where the forge's repositories live, as configured, or undefined when it is not configured at all;
   * `credentials`: whether its credentials are set (the forge was built, or `configuredIn` for `explain`).
   */
  host(settings: R, credentials: boolean): ForgeHost | undefined;
  /** Whether the environment configures this forge, read without reading any secret: `explain` routes by it. */
  configuredIn(env: NodeJS.ProcessEnv): boolean;
  /** How `explain` names what a target would be reported as on this forge. */
  explain(settings: R, target: ReportTarget): ExplainForm;
  /** Its URL setting when it is used (the start-up line names the plain-http ones). */
  url(settings: S): { setting: string; url: string } | undefined;
  /** Its own tables' migrations (`<name>-migrations.ts`), each with the version it shipped as (`store/migrations.ts`). */
  readonly migrations?: readonly Migration[];
  /** Its client and what only it knows of writing there, or undefined when its settings do not configure it. */
  connect(settings: S, deps: ForgeDeps): ForgeConnection<any, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
}
