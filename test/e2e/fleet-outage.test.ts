/**
 * A spoke that cannot be read is not a gone workload: through an outage longer than CLEANUP_GRACE nothing is
 * written and nothing is read in the hub instead; the Flux object says why, the cluster is listed as degraded
 * (still ready) and counted; a down spoke costs about one request per backoff, not one per Flux object; once it
 * answers again, what changed meanwhile is reported. And a token rotated in the Secret is used without a restart.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { queueIdle } from '../harness/state-body.js';
import { putApp, putRemoteKustomization, putSpokeSecret, startSpoke } from '../harness/spokes.js';
import { startWorld } from '../harness/world.js';
import { sha } from './scenario.js';

const A = sha('fleet-outage-a');
const B = sha('fleet-outage-b');
const DECOY = sha('fleet-outage-decoy');
const TIMEOUT_MS = 60_000;
const APPS = ['web', 'api', 'worker'];

t.test('spoke outage past the grace: nothing written, nothing read in the hub; caught up after', async (t) => {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, 'prod-eu');
  t.teardown(async () => {
    await world.close();
    await spoke.kube.close();
  });
  for (const app of APPS) {
    putApp(spoke.kube, app, `acme/${app}`, A);
    putApp(world.kube, app, `acme/${app}`, DECOY);
    putRemoteKustomization(world.kube, app, app, { secretName: spoke.secretName });
  }
  const bridge = await world.bridge({ CLEANUP_GRACE: '1s', RESYNC_INTERVAL: '1s' });
  const latest = (app: string, commit: string) =>
    world.github
      .deployments('acme', app)
      .find((d) => d.sha === commit)
      ?.statuses.at(-1)?.state;
  await bridge.waitFor('A live', () => APPS.every((app) => latest(app, A) === 'success'), TIMEOUT_MS);

  const writesBefore = world.github.writes().length;
  const hubReadsBefore = world.kube.requests.length;
  // The outage: every connection to the spoke is cut.
  spoke.kube.inject({ reset: true, times: Infinity });
  const outageStart = Date.now();
  const sent = () => spoke.kube.requests.filter((r) => r.fault === 'reset').length;
  const state = await bridge.waitFor(
    'the outage shown',
    async () => {
      const s = await bridge.state();
      const shown = APPS.every((app) =>
        s.skipped.some((k) => k.fluxObject === `Kustomization/flux-system/${app}` && k.code === 'cluster_unavailable'),
      );
      return shown && s.clusters?.find((c) => c.name === 'prod-eu')?.answers === false && s;
    },
    TIMEOUT_MS,
  );
  t.match(state.skipped.find((k) => k.fluxObject === 'Kustomization/flux-system/web')?.reason, /^cluster prod-eu: /);
  // Past the grace, several resync passes.
  await new Promise((r) => setTimeout(r, 6_000));
  const seconds = (Date.now() - outageStart) / 1000;
  t.equal(world.github.writes().length, writesBefore, 'nothing written through the outage: an unreachable spoke is not a gone workload');
  t.ok(
    APPS.every((app) => latest(app, A) === 'success'),
    'every deployment keeps its last state',
  );
  const hubWorkloadReads = world.kube.requests.slice(hubReadsBefore).filter((r) => r.path.startsWith('/apis/apps/'));
  t.same(hubWorkloadReads, [], 'no workload read in the hub in the spoke’s place');
  t.ok(
    sent() <= seconds + 2,
    `about one request per backoff, not per Flux object: ${sent()} in ${seconds.toFixed(1)} s for ${APPS.length} Flux objects`,
  );
  const ready = await bridge.readyz();
  t.equal(ready.status, 200, 'still ready');
  t.match(ready.body.degraded, [/remote cluster prod-eu cannot be read: cluster prod-eu: /]);
  const metrics = await bridge.metrics();
  t.match(metrics, /gdb_cluster_up\{cluster="prod-eu"\} 0/);
  t.match(metrics, /gdb_cluster_read_failures_total\{cluster="prod-eu",reason="unreachable"\} [1-9]/);

  // Meanwhile the spoke moved on to B; then it answers again.
  putApp(spoke.kube, 'web', 'acme/web', B);
  spoke.kube.clearFaults();
  await bridge.waitFor(
    'caught up: B live, A superseded',
    () => latest('web', B) === 'success' && latest('web', A) === 'inactive',
    TIMEOUT_MS,
  );
  // Each Flux object clears its reason at its own next reconcile (some are still in their backoff when web is caught up).
  const after = await bridge.waitFor(
    'every Flux object read again',
    async () => {
      const state = await bridge.state();
      return state.skipped.every((k) => k.code !== 'cluster_unavailable') && state;
    },
    TIMEOUT_MS,
  );
  t.equal(after.clusters?.find((c) => c.name === 'prod-eu')?.answers, true, 'the spoke answers again');
  t.same(
    after.skipped.filter((k) => k.code === 'cluster_unavailable'),
    [],
    'the reason is gone with the outage',
  );
  t.match(await bridge.metrics(), /gdb_cluster_up\{cluster="prod-eu"\} 1/);
  t.same(world.github.violations, []);
});

t.test("a token rotated in the spoke's Secret is used without a restart", async (t) => {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, 'prod-eu');
  t.teardown(async () => {
    await world.close();
    await spoke.kube.close();
  });
  putApp(spoke.kube, 'web', 'acme/web', A);
  putRemoteKustomization(world.kube, 'web', 'web', { secretName: spoke.secretName });
  const bridge = await world.bridge();
  const latest = (commit: string) =>
    world.github
      .deployments('acme', 'web')
      .find((d) => d.sha === commit)
      ?.statuses.at(-1)?.state;
  await bridge.waitFor('A live', () => latest(A) === 'success', TIMEOUT_MS);

  // Cluster API rotates the token: the spoke takes only the new one, the Secret holds it.
  spoke.kube.token = 'rotated-token';
  putSpokeSecret(world.kube, spoke, 'rotated-token');
  const rotatedAt = spoke.kube.requests.length;
  putApp(spoke.kube, 'web', 'acme/web', B);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor('B live with the new token', async () => latest(B) === 'success' && queueIdle(await bridge.state()), TIMEOUT_MS);
  // A request already on its way when the Secret changed may still carry the old token (and be refused, then
  // retried): from the first request with the rotated token on, every one carries it and none is refused.
  const since = spoke.kube.requests.slice(rotatedAt);
  const first = since.findIndex((r) => r.authorization === 'Bearer rotated-token');
  t.ok(first >= 0, 'the rotated token was used');
  const after = since.slice(first);
  t.same(
    [...new Set(after.map((r) => r.authorization))],
    ['Bearer rotated-token'],
    'every request after the rotation carried the new token',
  );
  t.same(
    after.filter((r) => r.status === 401),
    [],
    'none was refused',
  );
});
