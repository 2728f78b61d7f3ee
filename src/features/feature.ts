/**
 * The one contract of a feature (DORA figures, pull request comments, and the next: deployment records, traces): a
 * folder of `src/features/` that reacts to the spine's events and shows itself in `/state`, `/metrics` and the
 * status page. `main.ts` lists the features as the registry lists the forges; the spine, the forges and the edges
 * iterate them and name none. Its tables' migrations are its folder's `<name>-migrations.ts`, listed in
 * `features/schema.ts` (each with the version it shipped as: one database version for everyone).
 */
import type { Logger } from 'pino';
import type { Metrics } from '../common/metrics.js';
import type { Forge } from '../forges/forge.js';
import type { ReconcileHooks } from '../reconcile/reconcile-hooks.js';
import type { Db } from '../store/database.js';
import type { DeploymentRow } from '../store/deployment-store.js';

/**
 * Where a section goes: after the deployments, after the queue, after the readiness (in /state; on the status page:
 * `deployments` after the deployments, the others at the end).
 */
export type SectionPlace = 'deployments' | 'queue' | 'readiness';

/** A feature's part of `/state`. */
export interface StateSection {
  place: SectionPlace;
  /** Its top-level fields. */
  fields(now: number): Record<string, unknown>;
  /** What it adds to each deployment of `/state` (a row's pull request). */
  row?(d: DeploymentRow & { sha: string }): Record<string, unknown>;
  /** Its lists that grow with the cluster (paths as `http/state-cap.ts` names them), shortened when `/state` is too long. */
  lists?: readonly string[];
}

/** The forge's names as people read them (`github` → `GitHub`). */
export type Titles = Readonly<Record<string, string>>;

/** A feature's section of the status page: HTML from the `/state` snapshot (its own fields in it); empty: none. */
export interface PageSection {
  place: SectionPlace;
  render(state: Readonly<Record<string, unknown>>, titles: Titles, now: number | undefined): string;
}

/** What `/state`, the status page and `/metrics` show beyond the spine's own: a feature's sections, or the bridge's. */
export type Section = Pick<Feature, 'state' | 'page' | 'scrape'>;

export interface Feature {
  readonly name: string;
  /** What it does at the reconcile's steps (before a publish, a deployment ended, a reconcile's writes done). */
  hooks?: ReconcileHooks;
  state?: StateSection;
  page?: PageSection;
  /** Sets its `/metrics` series before a scrape. */
  scrape?(): void;
  /** Started once the server listens and the forges' first checks are done; stopped before the worker. */
  start?(): void;
  stop?(): Promise<void> | void;
}

/** What every feature is built from (its own settings come beside, as a slice of the configuration). */
export interface FeatureDeps {
  db: Db;
  /** The configured forges: their ports (comments, commit times). */
  forges: readonly Forge[];
  metrics: Metrics;
  log: Logger;
  now: () => number;
  /** `DRY_RUN`: forge writes are logged, not sent. */
  dryRun: boolean;
  /** `CLUSTER_NAME`. */
  cluster: string;
  /** The database file, for a reader beside the bridge; none: in memory (a dry run). */
  databasePath?: string;
}

/** Builds a feature from the shared parts and its settings; undefined: turned off. `main.ts` lists them in order. */
export type FeatureFactory<S> = (deps: FeatureDeps, settings: S) => Feature | undefined;
