/**
 * A spoke's rollouts end without a Flux event, as a local cluster's do: the bridge watches the spoke (over the
 * spoke's own credentials) only while something rolls out there, one watch per spoke and kind across its
 * namespaces, and its final status comes from that watch, not from the re-check schedule. An idle spoke is never
 * watched; the hub is never watched for a spoke.
 */
import t from 'tap';
import { sha } from './scenario.js';
import { putApp, putRemoteKustomization, startSpoke } from '../harness/spokes.js';
import { KUBE_TOKEN, startWorld } from '../harness/world.js';
import { finishRollout } from '../harness/rollouts.js';

const COMMIT = sha('fleet-rollout-watch');
const WAKE = 'rollout changed: reconciling its Flux objects';
/** The re-check behind a held watch is minutes away (WATCHED_RECHECK_MS); without a watch it is 5 s. */
const SAFETY_NET_MS = 4 * 60_000;
const TIMEOUT_MS = 60_000;

const watchesOf = (requests: Array<{ path: string; query: Record<string, string>; authorization?: string }>) =>
  requests.filter((r) => r.query.watch === 'true');

t.test(
  "a spoke's rollouts in two namespaces end through one watch of that spoke, opened while they roll out and closed after",
  async (t) => {
    const world = await startWorld();
    const eu = await startSpoke(world.kube, 'prod-eu');
    const us = await startSpoke(world.kube, 'prod-us');
    t.teardown(async () => {
      await world.close();
      await eu.kube.close();
      await us.kube.close();
    });
    putApp(eu.kube, 'web', 'acme/web', COMMIT, { rolling: true });
    putApp(eu.kube, 'shop', 'acme/shop', COMMIT, { rolling: true, namespace: 'store' });
    putApp(us.kube, 'api', 'acme/api', COMMIT);
    putRemoteKustomization(world.kube, 'web', 'web', { secretName: eu.secretName });
    putRemoteKustomization(world.kube, 'shop', 'shop', { secretName: eu.secretName, namespace: 'store' });
    putRemoteKustomization(world.kube, 'api', 'api', { secretName: us.secretName });
    const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
    const states = (app: string) => world.github.deployments('acme', app)[0]?.statuses.map((s) => s.state) ?? [];

    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, eu.kube.openWatches)), 5);
    t.teardown(() => clearInterval(sample));
    await bridge.waitFor('in_progress while the spoke rolls out', () => states('web').includes('in_progress'), TIMEOUT_MS);
    await bridge.waitFor('in_progress in its other namespace', () => states('shop').includes('in_progress'), TIMEOUT_MS);
    await bridge.waitFor('the idle spoke reported', () => states('api').at(-1) === 'success', TIMEOUT_MS);
    await bridge.waitFor('the watch of the rolling spoke is open', () => eu.kube.openWatches === 1, TIMEOUT_MS);
    const row = await bridge.waitFor(
      're-check of web',
      async () => (await bridge.state()).queue.items.find((i) => i.name === 'web' && i.state === 'pending'),
      TIMEOUT_MS,
    );
    t.ok(Date.parse(row.notBefore!) - Date.now() > SAFETY_NET_MS, "the spoke's watch is held: the re-check behind it is minutes away");

    finishRollout(eu.kube, 'apps', 'web');
    await bridge.waitFor('success once the spoke is done (no Flux event)', () => states('web').at(-1) === 'success', TIMEOUT_MS);
    t.same(states('web'), ['in_progress', 'success']);
    const wake = bridge.logs.find((l) => l.msg === WAKE);
    t.match(wake, { cluster: 'prod-eu', workload: 'Deployment/apps/web', now: 'complete', via: 'watch' }, 'the end came from the watch');
    t.equal(eu.kube.openWatches, 1, 'the other namespace still rolls out: the watch stays');

    finishRollout(eu.kube, 'store', 'shop');
    await bridge.waitFor('success in the other namespace', () => states('shop').at(-1) === 'success', TIMEOUT_MS);
    t.match(
      bridge.logs.filter((l) => l.msg === WAKE).at(-1),
      { cluster: 'prod-eu', workload: 'Deployment/store/shop', via: 'watch' },
      'through the same watch',
    );
    await bridge.waitFor('the watch is closed once nothing rolls out there', () => eu.kube.openWatches === 0, TIMEOUT_MS);
    t.equal(most, 1, 'one watch at most on the spoke, for two namespaces rolling out');

    const euWatches = watchesOf(eu.kube.requests);
    t.ok(euWatches.length >= 1, 'the rolling spoke was watched');
    t.same([...new Set(euWatches.map((r) => r.path))], ['/apis/apps/v1/deployments'], 'across the spoke, per kind');
    t.same([...new Set(euWatches.map((r) => r.authorization))], [`Bearer ${eu.token}`], "with the spoke's own token only");
    t.notOk(
      eu.kube.requests.some((r) => r.authorization === `Bearer ${KUBE_TOKEN}`),
      "the bridge's own token never reached the spoke",
    );
    t.same(watchesOf(us.kube.requests), [], 'the idle spoke was never watched');
    t.same(watchesOf(world.kube.requests), [], 'the hub was never watched for a spoke');
    t.same(world.github.violations, []);
  },
);
