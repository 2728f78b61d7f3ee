/**
 * The DORA figures end to end (issue 26): the real bridge against the GitHub simulator, production. A commit
 * fails its health check, the next one succeeds: one failed change, restored; the success's commit time read
 * once from GitHub (a lead time); kept over a restart without a new read; a commit GitHub does not hold leaves
 * its lead time unknown; a lost database comes back empty, not zero.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { startWorld, type World } from '../harness/world.js';
import { HEALTH_FAILED, OPT_IN, READY, putDeployment, putKustomization, sha } from './scenario.js';

const WAIT_MS = 60_000;
const A = sha('dora-e2e-a');
const B = sha('dora-e2e-b');
const C = sha('dora-e2e-c');
const ENV = { ENVIRONMENT: 'production' };
const TWO_HOURS_S = 7_200;

const statesOf = (world: World, commit: string) =>
  world.github
    .deployments('acme', 'web')
    .filter((d) => d.sha === commit)
    .flatMap((d) => d.statuses.map((s) => s.state));

async function roll(world: World, bridge: BridgeProcess, commit: string, generation: number, ready: boolean): Promise<void> {
  putDeployment(world, 'web', `registry.invalid/acme/web:${commit.slice(0, 7)}`, {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'acme/web',
    'github-deployment-bridge.io/commit': commit,
  });
  putKustomization(world, 'web', ['web'], ready ? READY : HEALTH_FAILED, generation);
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'))).status, 202);
  const want = ready ? 'success' : 'failure';
  await bridge.waitFor(`${commit.slice(0, 7)} ${want}`, () => statesOf(world, commit).includes(want), WAIT_MS);
}

const production = async (bridge: BridgeProcess) =>
  (await bridge.state()).dora?.environments.find((e) => e.repository === 'acme/web' && e.environment === 'production');

/** The figures are computed off the request path (issue 32): waits, bounded, until they count `deployments`. */
async function computed(bridge: BridgeProcess, deployments: number) {
  await bridge.waitFor(
    `figures of ${deployments} deployments`,
    async () => (await production(bridge))?.deployments === deployments,
    WAIT_MS,
  );
  return production(bridge);
}

t.test('lead time, change failure rate and time to restore from a real rollout, one commit read', async (t) => {
  const world = await startWorld({ github: { repos: ['acme/web'] } });
  t.teardown(() => world.close());
  world.github.commit('acme', 'web', B, { committedAt: new Date(Date.now() - TWO_HOURS_S * 1000).toISOString() });
  let bridge = await world.bridge(ENV);
  await roll(world, bridge, A, 1, false);
  await roll(world, bridge, B, 2, true);
  await bridge.waitFor('the commit time read', async () => (await bridge.state()).dora?.commitTimes?.known === 1, WAIT_MS);

  const figures = await computed(bridge, 2);
  t.match(figures, { forge: 'github', deployments: 2, failedChanges: 1, changeFailureRate: 0.5, unrestored: 0 });
  const lead = Number(figures?.leadTimeMedianSeconds);
  t.ok(lead >= TWO_HOURS_S && lead < TWO_HOURS_S + 120, `lead time ${lead} s: committed two hours before the rollout was complete`);
  t.ok(Number(figures?.timeToRestoreMedianSeconds) >= 0, 'the failure was restored by the next success');
  t.same(
    world.github.commitReads().map((r) => r.path),
    [`/repos/acme/web/git/commits/${B}`],
    "one read: the success's commit (a failed commit has no lead time)",
  );
  const metrics = await bridge.metrics();
  t.match(metrics, /gdb_dora_commit_time_reads_total\{forge="github",result="known"\} 1/);
  t.match(metrics, /gdb_dora_lead_time_seconds_count\{forge="github",environment="production"\} 1/);
  t.match(metrics, /gdb_dora_time_to_restore_seconds_count\{forge="github",environment="production"\} 1/);
  t.match(
    metrics,
    /gdb_forge_requests_total\{forge="github",operation="GET \/repos\/\{owner\}\/\{repo\}\/git\/commits\/\{commit_sha\}",status="200"\} 1/,
  );

  // A restart: the figures are the database's, the commit time is not read again.
  await bridge.kill('SIGTERM');
  bridge = await world.bridge(ENV);
  t.equal((await computed(bridge, 2))?.leadTimeMedianSeconds, figures?.leadTimeMedianSeconds, 'the same lead time after a restart');
  t.equal(world.github.commitReads().length, 1, 'no new read');

  // A commit GitHub does not hold (a force-pushed branch): read once, missing, its lead time unknown.
  world.github.missingCommit('acme', 'web', C);
  await roll(world, bridge, C, 3, true);
  await bridge.waitFor('the missing commit noted', async () => (await bridge.state()).dora?.commitTimes?.missing === 1, WAIT_MS);
  t.equal((await computed(bridge, 3))?.leadTimeMedianSeconds, figures?.leadTimeMedianSeconds, 'C adds no lead time');
  t.equal(world.github.commitReads().length, 2, 'C was asked once');
  t.same(world.github.violations, [], 'every request as GitHub describes it');

  // The database lost: the figures start again, absent rather than zero.
  await bridge.kill('SIGTERM');
  rmSync(join(world.dir, 'bridge.db'), { force: true });
  for (const suffix of ['-wal', '-shm']) rmSync(join(world.dir, `bridge.db${suffix}`), { force: true });
  bridge = await world.bridge(ENV);
  await bridge.waitFor('the figures computed', async () => typeof (await bridge.state()).dora?.computedAt === 'string', WAIT_MS);
  // The new bridge may already have published (and so named the environment) when the first figures are computed:
  // an environment may be listed, but with no deployment and every figure absent, never 0.
  const known = ((await bridge.state()).dora?.environments ?? []) as Record<string, unknown>[];
  const FIGURES = ['deploymentsPerDay', 'deploymentsPerWeek', 'leadTimeMedianSeconds', 'changeFailureRate', 'timeToRestoreMedianSeconds'];
  t.same(
    known.filter((e) => e.deployments !== 0 || FIGURES.some((f) => e[f] !== null)),
    [],
    'nothing is known',
  );
  t.notMatch(await bridge.metrics(), /gdb_dora_(lead_time_seconds_count|deployments_per_day|change_failure_ratio)\{/, 'no DORA series');
});
