import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from 'octokit';
import { pino } from 'pino';
import { ForgeHealth } from '../../../src/forges/forge-health.js';
import { GITHUB_BUDGETS } from '../../../src/forges/github/rate-limit.js';
import { createDeploymentsPort, createOctokit, staticToken } from '../../../src/forges/github/octokit-factory.js';
import type { DeploymentsPort, StatusState } from '../../../src/forges/github/github-types.js';
import type { DesiredState } from '../../../src/lifecycle/status-plan.js';
import { resolveTarget, type ReportTarget } from '../../../src/metadata/resolve-target.js';
import { createMetrics } from '../../../src/common/metrics.js';
import { GitHubPublisher } from '../../../src/forges/github/github-publisher.js';
import { type Db } from '../../../src/store/database.js';
import { DeploymentStore, type DeploymentRow, type Origin } from '../../../src/store/deployment-store.js';
import { startGitHubSimulator, type GitHubSimulator, type SimDeployment } from '../../harness/github-sim.js';
import { openDatabase } from '../../harness/database.js';

const TOKEN = 'ghs_publisher_test';
const OWNER = 'acme';
const REPO = 'shop';
const sha = (seed: string) => createHash('sha1').update(seed).digest('hex');
const SHA_A = sha('commit-a');
const SHA_B = sha('commit-b');
const log = pino({ level: 'silent' });
const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'shop' };
const workload = { kind: 'Deployment', namespace: 'shop', name: 'shop' };

/**
 * How the workload is configured: `production`, `named` (a deployment-name annotation), `staging`
 * (defaults: where GitHub's auto_inactive would act if the bridge left it on). All three must end alike.
 */
type Flavour = 'production' | 'named' | 'staging';

function target(flavour: Flavour, commit: string, image: string, cluster = 'eu-1'): { target: ReportTarget; origin: Origin } {
  const annotations: Record<string, string> = flavour === 'named' ? { 'deployment-name': 'shop-api' } : {};
  const r = resolveTarget(
    source,
    { ...workload, annotations, containers: [{ name: 'app', image }] },
    { name: 'app', image },
    { labels: { 'org.opencontainers.image.source': `https://github.com/${OWNER}/${REPO}`, 'org.opencontainers.image.revision': commit } },
    {
      cluster,
      environment: flavour === 'production' ? 'production' : 'staging',
      description: 'Flux',
      forges: [{ forge: 'github', host: 'github.com' }],
      controllerVersion: '0.1.0',
    },
  );
  if (!('target' in r)) throw new Error(r.skip);
  return { target: r.target, origin: { source, workload, container: 'app', image } };
}

/** The lifecycle every scenario drives: A rolls out and succeeds, then B succeeds and supersedes A. */
function lifecycle(flavour: Flavour): Array<{ label: string; desired: DesiredState } & ReturnType<typeof target>> {
  const a = target(flavour, SHA_A, 'ghcr.io/acme/shop:1.0.0');
  const b = target(flavour, SHA_B, 'ghcr.io/acme/shop:1.1.0');
  return [
    { label: 'A in_progress', desired: 'in_progress', ...a },
    { label: 'A success', desired: 'success', ...a },
    { label: 'B success', desired: 'success', ...b },
  ];
}

/** A call of the port to crash on: the nth call of `method` (with that status state), before or after it reaches GitHub. */
interface CrashPoint {
  name: string;
  method: keyof DeploymentsPort;
  state?: StatusState;
  nth?: number;
  before?: boolean;
  /** Reads the recovery costs beyond the run without a crash. */
  extra: { list: number; listStatuses: number };
  /** What the reopened cache holds for A and B right after the crash (null: no row). */
  left: [Record<string, unknown>, Record<string, unknown> | null];
}

const CRASH_POINTS: CrashPoint[] = [
  {
    name: 'after the provisional row',
    method: 'listDeployments',
    before: true,
    extra: { list: 0, listStatuses: 0 },
    left: [{ deploymentId: null, state: null, pendingState: null }, null],
  },
  {
    name: 'after createDeployment (A)',
    method: 'createDeployment',
    extra: { list: 1, listStatuses: 1 },
    left: [{ deploymentId: null, state: null, pendingState: null }, null],
  },
  {
    name: 'after status in_progress',
    method: 'createStatus',
    state: 'in_progress',
    extra: { list: 0, listStatuses: 1 },
    left: [{ deploymentId: Number, state: null, pendingState: 'in_progress' }, null],
  },
  {
    name: 'after status success (A)',
    method: 'createStatus',
    state: 'success',
    extra: { list: 0, listStatuses: 1 },
    left: [{ state: 'in_progress', pendingState: 'success' }, null],
  },
  {
    name: 'after createDeployment (B)',
    method: 'createDeployment',
    nth: 2,
    extra: { list: 1, listStatuses: 1 },
    left: [
      { state: 'success', pendingState: null },
      { deploymentId: null, state: null, pendingState: null },
    ],
  },
  {
    name: 'after status success (B)',
    method: 'createStatus',
    state: 'success',
    nth: 2,
    extra: { list: 0, listStatuses: 1 },
    left: [
      { state: 'success', pendingState: null },
      { deploymentId: Number, state: null, pendingState: 'success' },
    ],
  },
  {
    name: 'after the supersede inactive',
    method: 'createStatus',
    state: 'inactive',
    extra: { list: 0, listStatuses: 1 },
    left: [
      { state: 'success', pendingState: 'gone' },
      { state: 'success', pendingState: null },
    ],
  },
];

class SimulatedCrash extends Error {}

/** Wraps a port so the chosen call reaches GitHub (unless `before`) and then throws, as if the process died. */
function crashing(port: DeploymentsPort, point: CrashPoint | undefined): { port: DeploymentsPort; fired: () => number } {
  let seen = 0;
  let fired = 0;
  const guard = async <R>(method: keyof DeploymentsPort, state: StatusState | undefined, call: () => Promise<R>): Promise<R> => {
    const hit =
      point !== undefined && point.method === method && (point.state === undefined || point.state === state) && ++seen === (point.nth ?? 1);
    if (hit) fired++;
    if (hit && point.before) throw new SimulatedCrash(`crash ${point.name}`);
    const out = await call();
    if (hit) throw new SimulatedCrash(`crash ${point.name}`);
    return out;
  };
  return {
    fired: () => fired,
    port: {
      listDeployments: (r, q) => guard('listDeployments', undefined, () => port.listDeployments(r, q)),
      createDeployment: (r, b) => guard('createDeployment', undefined, () => port.createDeployment(r, b)),
      listStatuses: (r, id) => guard('listStatuses', undefined, () => port.listStatuses(r, id)),
      createStatus: (r, id, b) => guard('createStatus', b.state, () => port.createStatus(r, id, b)),
    },
  };
}

/** Octokit without the write throttle (which spaces writes ~1 s apart) and without retries. */
const plainPort = (sim: GitHubSimulator): DeploymentsPort =>
  createDeploymentsPort(new Octokit({ auth: TOKEN, baseUrl: sim.url, retry: { enabled: false }, throttle: { enabled: false } }));

/** Requests the simulator saw, by kind. */
function counts(sim: GitHubSimulator) {
  const is = (method: string, re: RegExp) => sim.requests.filter((r) => r.method === method && re.test(r.path)).length;
  return {
    list: is('GET', /\/deployments$/),
    create: is('POST', /\/deployments$/),
    listStatuses: is('GET', /\/statuses$/),
    status: is('POST', /\/statuses$/),
  };
}

const states = (d: SimDeployment) => d.statuses.map((s) => s.state);
const repeats = (d: SimDeployment) => states(d).filter((s, i, all) => i > 0 && all[i - 1] === s);

/**
 * Runs the lifecycle over a fresh simulator and database; on a crash, "restarts": closes the database,
 * reopens the same file under a new DeploymentStore and GitHubPublisher, and runs the step again.
 */
async function run(t: Test, opts: { flavour: Flavour; crash?: CrashPoint; port?: (sim: GitHubSimulator) => DeploymentsPort }) {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], repos: [`${OWNER}/${REPO}`] });
  const dir = mkdtempSync(join(tmpdir(), 'gdb-publisher-'));
  const path = join(dir, 'bridge.db');
  let db: Db = openDatabase(path);
  t.teardown(async () => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
    await sim.close();
  });
  let clock = 1_000;
  const real = (opts.port ?? plainPort)(sim);
  const crash = crashing(real, opts.crash);
  const publisherOver = (port: DeploymentsPort) =>
    new GitHubPublisher({ github: port, deployments: new DeploymentStore(db), log, now: () => ++clock });
  let publisher = publisherOver(crash.port);
  let recovery: ReturnType<typeof counts> | undefined;
  let left: Array<DeploymentRow | undefined> = [];
  const steps = lifecycle(opts.flavour);
  const rows = () => steps.filter((_, i) => i !== 1).map((s) => new DeploymentStore(db).get(s.target));
  for (const step of steps) {
    try {
      await publisher.publish(step.target, step.origin, step.desired, step.label);
    } catch (err) {
      if (!(err instanceof SimulatedCrash)) throw err;
      db.close();
      db = openDatabase(path);
      left = rows();
      publisher = publisherOver(real);
      const before = counts(sim);
      await publisher.publish(step.target, step.origin, step.desired, step.label);
      const after = counts(sim);
      recovery = {
        list: after.list - before.list,
        create: after.create - before.create,
        listStatuses: after.listStatuses - before.listStatuses,
        status: after.status - before.status,
      };
    }
  }
  const settled = counts(sim);
  const last = steps.at(-1)!;
  await publisher.publish(last.target, last.origin, last.desired, 'again');
  const replay = counts(sim);
  return {
    sim,
    fired: crash.fired(),
    total: settled,
    recovery,
    left,
    replayRequests: Object.values(replay).reduce((a, b) => a + b, 0) - Object.values(settled).reduce((a, b) => a + b, 0),
    cached: rows(),
  };
}

/** What every run must leave on GitHub, crash or not. */
function assertGitHub(t: Test, sim: GitHubSimulator) {
  const ds = sim.deployments(OWNER, REPO);
  t.same(
    ds.map((d) => d.sha),
    [SHA_A, SHA_B],
    'exactly one deployment per commit',
  );
  for (const d of ds)
    t.same(
      repeats(d),
      [],
      `no status repeated in a row on ${d.sha.slice(0, 7)}: ${d.statuses.map((s) => `${s.state}/${s.addedBy}`).join(', ')}`,
    );
  t.same(states(ds[0]!), ['in_progress', 'success', 'inactive'], 'A: rolled out, succeeded, superseded');
  t.same(states(ds[1]!), ['success'], 'B: caught up at success');
  t.same(
    ds.flatMap((d) => d.statuses.filter((s) => s.addedBy !== 'client').map((s) => `${d.sha.slice(0, 7)} ${s.state}`)),
    [],
    'GitHub added no status of its own: the bridge turned auto_inactive off and superseded A itself',
  );
  t.same(sim.violations, [], "every request matched GitHub's schema");
}

const BASELINE = { list: 2, create: 2, listStatuses: 0, status: 4 };

t.test('the lifecycle through createOctokit (throttled, as in production)', async (t) => {
  const metrics = createMetrics();
  const r = await run(t, {
    flavour: 'production',
    port: (sim) =>
      createDeploymentsPort(
        createOctokit({
          credentials: staticToken(TOKEN),
          baseUrl: sim.url,
          userAgent: 'gdb-test',
          metrics,
          log,
          scope: 'token',
          health: new ForgeHealth({ auth: 'token', forge: 'GitHub', budgets: GITHUB_BUDGETS, now: Date.now }),
        }),
      ),
  });
  assertGitHub(t, r.sim);
  t.same(r.total, BASELINE, 'two lists, two creates, four statuses, no status reads');
  t.equal(r.replayRequests, 0, 'publishing the same truth again costs no request');
  const text = await metrics.registry.metrics();
  t.match(text, /gdb_forge_requests_total\{forge="github",operation="POST \/repos\/\{owner\}\/\{repo\}\/deployments",status="201"\} 2\b/);
  t.match(
    text,
    /gdb_forge_requests_total\{forge="github",operation="POST \/repos\/\{owner\}\/\{repo\}\/deployments\/\{deployment_id\}\/statuses",status="201"\} 4\b/,
  );
});

for (const flavour of ['production', 'named', 'staging'] as const) {
  t.test(`crash at every step of the create protocol (${flavour})`, async (t) => {
    const clean = await run(t, { flavour });
    assertGitHub(t, clean.sim);
    t.same(clean.total, BASELINE, 'without a crash');
    const successes = clean.sim.writes().filter((w) => (w.body as { state?: string }).state === 'success');
    t.same(
      successes.map((w) => (w.body as { auto_inactive?: boolean }).auto_inactive),
      [false, false],
      "every success turns GitHub's auto_inactive off: it would retire other clusters' live deployments",
    );

    for (const point of CRASH_POINTS) {
      await t.test(point.name, async (t) => {
        const r = await run(t, { flavour, crash: point });
        t.equal(r.fired, 1, 'the crash happened once');
        t.match(r.left[0], point.left[0], 'A in the reopened cache right after the crash');
        if (point.left[1] === null) t.equal(r.left[1], undefined, 'no row for B yet');
        else t.match(r.left[1], point.left[1], 'B in the reopened cache right after the crash');
        assertGitHub(t, r.sim);
        t.same(
          r.total,
          {
            list: BASELINE.list + point.extra.list,
            create: BASELINE.create,
            listStatuses: BASELINE.listStatuses + point.extra.listStatuses,
            status: BASELINE.status,
          },
          'no write repeated; recovery reads at most one list and one list-statuses',
        );
        t.ok(r.recovery, 'a recovery ran');
        t.ok(r.recovery!.list <= 1 && r.recovery!.listStatuses <= 1, `recovery step: ${JSON.stringify(r.recovery)}`);
        t.comment(`${flavour} / ${point.name}: total ${JSON.stringify(r.total)}, recovery step ${JSON.stringify(r.recovery)}`);
        t.equal(r.replayRequests, 0, 'the cache is settled: a replay sends nothing');
        t.match(
          r.cached,
          [
            { state: 'gone', pendingState: null },
            { state: 'success', pendingState: null },
          ],
          'the reopened cache agrees with GitHub',
        );
      });
    }
  });
}

t.test('two clusters, one environment: each bridge adopts and supersedes only its own deployments', async (t) => {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], repos: [`${OWNER}/${REPO}`] });
  const dir = mkdtempSync(join(tmpdir(), 'gdb-publisher-'));
  const dbs = ['eu-1', 'us-1'].map((c) => openDatabase(join(dir, `${c}.db`)));
  t.teardown(async () => {
    for (const db of dbs) db.close();
    rmSync(dir, { recursive: true, force: true });
    await sim.close();
  });
  let clock = 1_000;
  const [eu, us] = dbs.map(
    (db) => new GitHubPublisher({ github: plainPort(sim), deployments: new DeploymentStore(db), log, now: () => ++clock }),
  );
  const succeed = (p: GitHubPublisher, commit: string, cluster: string) => {
    const { target: tg, origin } = target('staging', commit, `ghcr.io/acme/shop:${commit.slice(0, 7)}`, cluster);
    return p.publish(tg, origin, 'success', cluster);
  };
  const euA = await succeed(eu!, SHA_A, 'eu-1');
  const usA = await succeed(us!, SHA_A, 'us-1');
  t.ok(usA.created && usA.deploymentId !== euA.deploymentId, "us-1 creates its own deployment of A: eu-1's payload names eu-1");
  t.same((await succeed(eu!, SHA_B, 'eu-1')).superseded, [euA.deploymentId], "eu-1's B supersedes eu-1's A only");
  const latest = () =>
    Object.fromEntries(
      sim.deployments(OWNER, REPO).map((d) => [`${String(d.payload.cluster)} ${d.sha.slice(0, 7)}`, d.statuses.at(-1)?.state]),
    );
  t.same(
    latest(),
    { [`eu-1 ${SHA_A.slice(0, 7)}`]: 'inactive', [`us-1 ${SHA_A.slice(0, 7)}`]: 'success', [`eu-1 ${SHA_B.slice(0, 7)}`]: 'success' },
    "us-1's A stays live while us-1 runs it",
  );
  t.same((await succeed(us!, SHA_B, 'us-1')).superseded, [usA.deploymentId], "us-1's B supersedes us-1's A only");
  t.equal(latest()[`eu-1 ${SHA_B.slice(0, 7)}`], 'success', "eu-1's B stays live");
  t.same(sim.violations, []);
});
