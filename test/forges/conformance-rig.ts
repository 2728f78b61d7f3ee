/**
 * What the forge conformance suite (conformance.ts) runs each case in: one forge built by its own
 * driver (`assembleForge`) against its simulator, over a SQLite file that a "restart" reopens with a new Forge,
 * targets resolved the way the reconcile resolves them (the driver's own host routes them), a clock the
 * test moves, and the simulator's own record of writes in neutral words. The driver (ConformanceDriver)
 * is the only forge-specific part.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../src/common/metrics.js';
import type { Forge } from '../../src/forges/forge.js';
import { assembleForge } from '../../src/forges/assemble-forge.js';
import type { ForgeDriver } from '../../src/forges/forge-driver.js';
import { resolveTarget, type ReportTarget } from '../../src/metadata/resolve-target.js';
import type { ForgeHost } from '../../src/metadata/forge-route.js';
import { type Db } from '../../src/store/database.js';
import { keepOutcomes } from '../../src/features/dora/dora-store.js';
import { DeploymentStore, type DeploymentRow, type Origin } from '../../src/store/deployment-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import type { ErrorFault, Fault } from '../harness/github-sim/faults.js';
import type { RequestHook } from '../harness/github-sim/hooks.js';
import type { SimRecord } from '../harness/sim-server.js';
import { openDatabase } from '../harness/database.js';

/** The repository every case reports to; `LOCKED` is one the simulator refuses (403 or 404), `MISSING` one it does not have. */
export const OWNER = 'acme';
export const REPO = 'shop';
export const LOCKED = 'locked';
export const MISSING = 'missing';
export const SHA = '3f786850e387550fdab836ed7e6dc881de23001b';

/** What the suite reads and arms on any forge's simulator: the face every SimServer-based simulator shows. */
export interface ConformanceSim {
  readonly requests: readonly SimRecord[];
  readonly violations: readonly unknown[];
  inject(fault: Fault): void;
  hook(hook: RequestHook): void;
  /** The requests that changed the forge's state, in order. */
  writes(): SimRecord[];
  /** Registers a commit with its dates (every simulator's CommitBook); `missingCommit`: one the repository does not hold. */
  commit(owner: string, repo: string, sha: string, dates: { committedAt: string }): void;
  missingCommit(owner: string, repo: string, sha: string): void;
  close(): Promise<void>;
}

/** One started simulator, as its driver hands it to the suite. */
export interface DriverWorld<S> {
  sim: ConformanceSim;
  /** The simulator's origin (scheme, host, port): where a same-origin redirect points. */
  origin: string;
  /** The forge's settings against this simulator: its credentials accepted, its writes not spaced. */
  settings: S;
  /** One simulator write in neutral words: `create in_progress`, `status success`, `status gone`, `environment`, `stop`. */
  wordOf(write: SimRecord): string;
  /** Whether a request, as it arrives, asks the forge to change what it shows (a token mint does not). */
  asksToWrite(request: SimRecord): boolean;
  /** What the forge shows on acme/shop: one `environment sha7 state` (neutral words) per deployment or status context. */
  shown(): string[];
  /** Opens pull request (merge request) `n` on acme/shop, and reads its comments' bodies, oldest first. */
  pullRequest(n: number): void;
  comments(n: number): string[];
}

/** The forge-specific part of the conformance suite: a few lines per forge. */
export interface ConformanceDriver<S extends R, R = S> {
  /** The forge's driver, as its folder exports it. */
  driver: ForgeDriver<S, R>;
  /**
   * Starts the simulator: acme/shop holds any commit, acme/locked refuses the bridge (403 or 404), every other
   * repository does not exist (404). `pathPrefix`: the forge is installed under that sub-path (GitHub: its API
   * is, as on GitHub Enterprise Server).
   */
  start(o?: { pathPrefix?: string }): Promise<DriverWorld<S>>;
  /** The forge's own answer asking to wait `seconds` (429 with Retry-After). */
  rateLimited(seconds: number): ErrorFault;
  /** The forge's documented writes, in `wordOf` words. */
  expected: {
    /** A new commit rolling out (in_progress), then live (success), in a permanent environment. */
    rollout: string[];
    /** Its workload gone afterwards (`retire`). */
    retire: string[];
    /** The same two in a transient (preview) environment. */
    previewRollout: string[];
    previewRetire: string[];
  };
}

/** A target and its origin, as the reconcile hands them to a forge. */
export interface Published {
  target: ReportTarget;
  origin: Origin;
}

/** One case's world: the current Forge over the SQLite file, and what the simulator saw. */
export interface World {
  readonly forge: Forge;
  readonly sim: ConformanceSim;
  /** The process died: the Forge and its connection are thrown away, a new one opens over the same file. */
  restart(): Forge;
  asksToWrite(request: SimRecord): boolean;
  /** The simulator's writes in neutral words, in order. */
  writes(): string[];
  shown(): string[];
  /** A target of acme/shop (or `repo`) at SHA in `staging`, or in the transient `pr-7` when `preview`. */
  target(o?: { repo?: string; preview?: boolean }): Published;
  /** Where the forge lives, as routing sees it. */
  readonly host: ForgeHost;
  /** The simulator's origin. */
  readonly origin: string;
  /** A target whose `repository` annotation is `repository`, routed among `forges` (default: this forge alone); or the skip reason. */
  resolve(repository: string, forges?: readonly ForgeHost[]): Published | string;
  /** The row the forge keeps for a target, read from the SQLite file. */
  row(p: Published): DeploymentRow | undefined;
  /** The outcomes recorded for the DORA figures (`deployment_outcomes`), as `environment outcome`, in order. */
  outcomes(): string[];
  /** The started simulator's own parts (pull requests, comments). */
  readonly driverWorld: DriverWorld<unknown>;
  /** Moves the forge's clock. */
  tick(ms: number): void;
}

const log = pino({ level: 'silent' });

/** A target as the reconcile resolves it from a workload's `repository` annotation, or the skip reason. */
function resolve(repository: string, forges: readonly ForgeHost[], preview: boolean): Published | string {
  const image = `registry.example.com/acme/shop:1.0.0`;
  const annotations = {
    repository,
    commit: SHA,
    environment: preview ? 'pr-7' : 'staging',
    'environment-url': 'https://shop.example.com/',
    ...(preview ? { transient: 'true' } : {}),
  };
  const r = resolveTarget(source, { ...workload, annotations, containers: [{ name: 'app', image }] }, { name: 'app', image }, undefined, {
    cluster: 'eu-1',
    description: 'Deployed by Flux',
    forges,
    controllerVersion: '0.1.0',
  });
  return 'target' in r ? { target: r.target, origin: { source, workload, container: 'app', image } } : r.skip;
}
const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'shop' };
const workload = { kind: 'Deployment', namespace: 'shop', name: 'shop' };

export async function openWorld<S extends R, R>(t: Test, driver: ConformanceDriver<S, R>, o: { pathPrefix?: string } = {}): Promise<World> {
  const started = await driver.start(o);
  const { sim, settings } = started;
  const dir = mkdtempSync(join(tmpdir(), 'gdb-conformance-'));
  const file = join(dir, 'bridge.db');
  let clock = Date.now();
  const now = () => clock;
  let db: Db;
  let forge: Forge;
  const build = (): Forge => {
    // The store announces each outcome; DORA keeps them, as in the bridge.
    db = keepOutcomes(openDatabase(file));
    const deployments = new DeploymentStore(db);
    const refusals = new RefusalStore(db);
    const deps = { db, deployments, refusals, metrics: createMetrics(), log, now, userAgent: 'gdb-conformance', dryRun: false };
    const built = assembleForge(driver.driver, settings, deps);
    if (built === undefined) throw new Error(`${driver.driver.name}: the driver's settings do not configure the forge`);
    return built;
  };
  forge = build();
  t.teardown(async () => {
    forge.stop();
    db.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const host = driver.driver.host(settings, true);
  if (host === undefined) throw new Error(`${driver.driver.name}: no host for the driver's settings`);
  return {
    get forge() {
      return forge;
    },
    sim,
    restart() {
      forge.stop();
      db.close();
      forge = build();
      return forge;
    },
    asksToWrite: (r) => started.asksToWrite(r),
    writes: () => sim.writes().map((w) => started.wordOf(w)),
    shown: () => started.shown(),
    host,
    origin: started.origin,
    target(o = {}) {
      const r = resolve(
        `${host.scheme ?? 'https'}://${host.host}${host.basePath ?? ''}/${OWNER}/${o.repo ?? REPO}`,
        [host],
        o.preview === true,
      );
      if (typeof r === 'string') throw new Error(r);
      return r;
    },
    resolve: (repository, forges = [host]) => resolve(repository, forges, false),
    row: (p) => new DeploymentStore(db).get(p.target),
    outcomes: () =>
      (db.prepare(`SELECT environment, outcome FROM deployment_outcomes ORDER BY rowid`).all() as Array<Record<string, string>>).map(
        (o) => `${o.environment} ${o.outcome}`,
      ),
    driverWorld: started,
    tick: (ms) => void (clock += ms),
  };
}
