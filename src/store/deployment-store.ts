import type { DeliveryState } from '../lifecycle/status-plan.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { ForgeName, Identity } from '../lifecycle/identity.js';
import { durably, type Db } from './database.js';
import {
  ACTIVE_SQL,
  KEY,
  PUBLISHED,
  identityParams,
  toRow,
  type DeploymentRow,
  type Origin,
  type Raw,
  type StateCount,
} from './deployment-row.js';
import { recordOutcome } from './outcome-events.js';

export type { DeploymentRow, Origin } from './deployment-row.js';

/** One commit-status context on a commit: a forge that reports by commit status keeps one row per context. */
export interface ContextKey {
  forge: ForgeName;
  owner: string;
  repo: string;
  sha: string;
  context: string;
}
const CONTEXT = `forge = @forge AND owner = @owner AND repo = @repo AND sha = @sha AND context = @context`;
const contextParams = (k: ContextKey) => ({ forge: k.forge, owner: k.owner, repo: k.repo, sha: k.sha, context: k.context });

/** The deployments cache: what the bridge knows each forge has, written before and after each forge call. */
export class DeploymentStore {
  constructor(private readonly db: Db) {}

  get(id: Identity): DeploymentRow | undefined {
    const r = this.db.prepare(`SELECT * FROM deployments WHERE ${KEY}`).get(identityParams(id)) as Raw | undefined;
    return r && toRow(r);
  }

  /** Writes the provisional row before anything is sent to the forge (step one of find-or-create); `context` on a forge of commit statuses. */
  insertProvisional(id: Identity, origin: Origin, now: number, context: string | null = null): DeploymentRow {
    this.db
      .prepare(
        `INSERT INTO deployments (forge, owner, repo, environment, sha, deployment_name, spoke, context, source_kind, source_namespace,
        source_name, workload_kind, workload_namespace, workload_name, container, image, created_at, updated_at)
      VALUES (@forge, @owner, @repo, @environment, @sha, @deploymentName, @spoke, @context, @sk, @sns, @sn, @wk, @wns, @wn, @container, @image, @now, @now)
      ON CONFLICT DO NOTHING`,
      )
      .run({
        ...identityParams(id),
        context,
        sk: origin.source.kind,
        sns: origin.source.namespace,
        sn: origin.source.name,
        wk: origin.workload.kind,
        wns: origin.workload.namespace,
        wn: origin.workload.name,
        container: origin.container,
        image: origin.image,
        now,
      });
    const row = this.get(id);
    if (row === undefined)
      throw new Error(`deployment row ${id.owner}/${id.repo} ${id.environment} ${id.sha} missing right after its insert`);
    return row;
  }

  /** Persists the forge's deployment id (and its last known state, when adopted after a crash). */
  setDeploymentId(id: Identity, deploymentId: number, state: DeliveryState | null, now: number): void {
    this.db.transaction(() => {
      recordOutcome(this.db, KEY, identityParams(id), state, now);
      this.db
        .prepare(`UPDATE deployments SET deployment_id = @deploymentId, state = @state, updated_at = @now WHERE ${KEY}`)
        .run({ ...identityParams(id), deploymentId, state, now });
    })();
  }

  /**
   * Marks a status as being sent (before the POST: durably, so that even after a power loss the status
   * is read back rather than sent twice) or clears the mark (a lost clear costs one read-back).
   */
  setPending(id: Identity, state: DeliveryState | null, now: number): void {
    const mark = () =>
      this.db
        .prepare(`UPDATE deployments SET pending_state = @state, updated_at = @now WHERE ${KEY}`)
        .run({ ...identityParams(id), state, now });
    if (state === null) mark();
    else durably(this.db, mark);
  }

  /** Records a state the forge accepted; clears the pending mark. A new success or failure is also an outcome recorded (outcome-events.ts). */
  setState(id: Identity, state: DeliveryState | null, description: string | null, now: number): void {
    this.db.transaction(() => {
      recordOutcome(this.db, KEY, identityParams(id), state, now);
      this.db
        .prepare(`UPDATE deployments SET state = @state, pending_state = NULL, description = @description, updated_at = @now WHERE ${KEY}`)
        .run({ ...identityParams(id), state, description, now });
    })();
  }

  /** A commit-status context's row (written first by `insertProvisional` with its context), or undefined. */
  ofContext(key: ContextKey): DeploymentRow | undefined {
    const r = this.db.prepare(`SELECT * FROM deployments WHERE ${CONTEXT}`).get(contextParams(key)) as Raw | undefined;
    return r && toRow(r);
  }

  /** `setState` for a commit-status context: the state the forge accepted, the pending mark cleared, a new outcome recorded. */
  setContextState(key: ContextKey, state: DeliveryState | null, description: string | null, now: number): void {
    this.db.transaction(() => {
      recordOutcome(this.db, CONTEXT, contextParams(key), state, now);
      this.updateContext(key, 'state = @state, pending_state = NULL, description = @description', { state, description, now });
    })();
  }

  /** `setPending` for a commit-status context (durably when set). */
  setContextPending(key: ContextKey, state: DeliveryState | null, now: number): void {
    const mark = () => this.updateContext(key, 'pending_state = @state', { state, now });
    if (state === null) mark();
    else durably(this.db, mark);
  }

  private updateContext(key: ContextKey, set: string, values: Record<string, unknown>): void {
    const done = this.db
      .prepare(`UPDATE deployments SET ${set}, updated_at = @now WHERE ${CONTEXT}`)
      .run({ ...contextParams(key), ...values });
    if (done.changes === 0) throw new Error(`no deployment row for status context "${key.context}" on ${key.owner}/${key.repo}@${key.sha}`);
  }

  /** Drops a row with nothing on the forge (a refused creation); the next attempt starts with a fresh find-or-create. */
  removeProvisional(id: Identity): void {
    this.db
      .prepare(`DELETE FROM deployments WHERE ${KEY} AND deployment_id IS NULL AND state IS NULL AND pending_state IS NULL`)
      .run(identityParams(id));
  }

  /** Forgets a deployment (a commit status superseded by a newer commit stays on the forge as history, out of cleanup's way). */
  forget(id: Identity): void {
    this.db.prepare(`DELETE FROM deployments WHERE ${KEY}`).run(identityParams(id));
  }

  /** Other commits of the same lineage (owner, repo, environment, deploymentName, spoke) that have a deployment. */
  lineage(id: Identity): DeploymentRow[] {
    return (
      this.db
        .prepare(
          `SELECT * FROM deployments WHERE forge = @forge AND owner = @owner AND repo = @repo AND environment = @environment
        AND deployment_name = @deploymentName AND spoke = @spoke AND sha != @sha AND ${PUBLISHED}`,
        )
        .all(identityParams(id)) as Raw[]
    ).map(toRow);
  }

  /** Deployments of a Flux source that their forge shows as live or unfinished (cleanup candidates). */
  activeForSource(source: SourceRef): DeploymentRow[] {
    return (
      this.db
        .prepare(
          `SELECT * FROM deployments WHERE source_kind = ? AND source_namespace = ? AND source_name = ?
        AND ${PUBLISHED} AND state IN ${ACTIVE_SQL}`,
        )
        .all(source.kind, source.namespace, source.name) as Raw[]
    ).map(toRow);
  }

  /** Whether any deployment (live, ended or provisional) came from this Flux source. */
  knowsSource(source: SourceRef): boolean {
    return (
      this.db
        .prepare(`SELECT 1 FROM deployments WHERE source_kind = ? AND source_namespace = ? AND source_name = ? LIMIT 1`)
        .get(source.kind, source.namespace, source.name) !== undefined
    );
  }

  /** Flux sources that still have live or unfinished deployments (the resync's orphan sweep). */
  activeSources(): SourceRef[] {
    return this.db
      .prepare(
        `SELECT DISTINCT source_kind AS kind, source_namespace AS namespace, source_name AS name FROM deployments
      WHERE ${PUBLISHED} AND state IN ${ACTIVE_SQL}`,
      )
      .all() as SourceRef[];
  }

  /** Newest first; `repository` (owner/repo, case-insensitive) and `environment` narrow it in SQL, before the limit. */
  list(limit = 500, filter: { repository?: string; environment?: string } = {}): DeploymentRow[] {
    return (
      this.db
        .prepare(
          `SELECT * FROM deployments
      WHERE (@repository IS NULL OR lower(owner || '/' || repo) = lower(@repository))
        AND (@environment IS NULL OR environment = @environment)
      ORDER BY updated_at DESC LIMIT @limit`,
        )
        .all({ limit, repository: filter.repository ?? null, environment: filter.environment ?? null }) as Raw[]
    ).map(toRow);
  }

  /** Rows per forge and state (`provisional` for rows with nothing on the forge yet), for /metrics. */
  countsByState(): StateCount[] {
    return this.db
      .prepare(`SELECT forge, COALESCE(state, 'provisional') AS state, COUNT(*) AS count FROM deployments GROUP BY 1, 2`)
      .all() as StateCount[];
  }
}
