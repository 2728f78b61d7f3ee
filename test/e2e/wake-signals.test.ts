/**
 * The signals bench/rollout-latency.ts reads to say which path delivered each status (test/harness/wake-signals.ts),
 * from the real bridge: the first resync pass delivers the `in_progress`, a Flux event is seen as one, and the
 * rollout watch delivers the `success`. Fails when a source of the instrument goes away or changes its shape.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { deployment } from '../harness/flux-objects.js';
import { finishRollout } from '../harness/rollouts.js';
import { deliveredBy, wakesFrom } from '../harness/wake-signals.js';
import { startWorld } from '../harness/world.js';
import { OPT_IN, READY, putKustomization, sha } from './scenario.js';

const APPS = 'Kustomization/flux-system/apps';

t.test('resync, event and watch each leave the structured wake the benchmark attributes statuses to', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations: { ...OPT_IN, 'github-deployment-bridge.io/repository': 'acme/web', 'github-deployment-bridge.io/commit': sha('web') },
      replicas: 2,
      rollout: 'progressing',
      containers: [{ name: 'app', image: 'registry.invalid/acme/web:1' }],
    }),
  );
  putKustomization(world, 'apps', ['web'], READY);
  const start = Date.now();
  // RESYNC_INTERVAL is 1h: the first pass at start-up is the only resync.
  const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
  const statusAt = (state: string) =>
    world.github.requests.find((r) => r.path.endsWith('/statuses') && (r.body as { state?: string }).state === state)?.time;
  const inProgressAt = await bridge.waitFor('in progress', () => statusAt('in_progress'));
  t.equal(deliveredBy(wakesFrom(bridge.logs), APPS, start, inProgressAt), 'resync', 'the first status came from the resync pass');

  const posted = Date.now();
  const r = await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps', { reason: 'ReconciliationSucceeded' }));
  t.equal(r.status, 202);
  await bridge.waitFor('the event queued', () => wakesFrom(bridge.logs).some((w) => w.via === 'event' && w.at >= posted));
  t.equal(deliveredBy(wakesFrom(bridge.logs), APPS, posted, Date.now()), 'event');
  await bridge.waitFor('the watch is open', () => world.kube.openWatches === 1);

  const changed = Date.now();
  finishRollout(world.kube, 'apps', 'web');
  const successAt = await bridge.waitFor('success', () => statusAt('success'));
  t.equal(deliveredBy(wakesFrom(bridge.logs), APPS, changed, successAt), 'watch', 'the watch delivered the success');
  t.same(world.github.violations, []);
});
