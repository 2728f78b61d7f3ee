/**
 * A fleet from one hub (docs/fleet.md): Flux objects with `spec.kubeConfig` in the hub, their workloads in a
 * spoke. The spoke's workloads are reported under the spoke's cluster; the hub's same-named decoys (another
 * image, another commit) never are, and no workload read goes to the hub.
 */
import t from 'tap';
import { sha } from './scenario.js';
import { queueIdle } from '../harness/state-body.js';
import { putApp, putRemoteHelmRelease, putRemoteKustomization, startSpoke } from '../harness/spokes.js';
import { KUBE_TOKEN, startWorld } from '../harness/world.js';

const SPOKE = sha('fleet-spoke-commit');
const DECOY = sha('fleet-hub-decoy');
/** Generous: the suite runs on a loaded 2-core machine. */
const TIMEOUT_MS = 60_000;

const workloadReads = (requests: Array<{ path: string }>) =>
  requests.filter((r) => /^\/apis\/apps\/|\/pods|\/serviceaccounts/.test(r.path));

t.test('a remote Kustomization and a remote HelmRelease are reported from the spoke, never from the hub', async (t) => {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, 'prod-eu');
  t.teardown(async () => {
    await world.close();
    await spoke.kube.close();
  });
  for (const app of ['web', 'api']) {
    putApp(spoke.kube, app, `acme/${app}`, SPOKE);
    // The decoy: the same namespace and name in the hub, another commit. Reading it would be the bug.
    putApp(world.kube, app, `acme/${app}`, DECOY);
  }
  putRemoteKustomization(world.kube, 'web', 'web', { secretName: spoke.secretName });
  putRemoteHelmRelease(world.kube, 'api', 'api', spoke.secretName);

  const bridge = await world.bridge();
  await bridge.waitFor(
    'both reported',
    () =>
      ['web', 'api'].every((app) => world.github.deployments('acme', app)[0]?.statuses.some((s) => s.state === 'success')) &&
      bridge.state().then(queueIdle),
    TIMEOUT_MS,
  );
  for (const [app, key] of [
    ['web', 'kustomization'],
    ['api', 'helmRelease'],
  ] as const) {
    const all = world.github.deployments('acme', app);
    t.same(
      all.map((d) => d.sha),
      [SPOKE],
      `${app}: one deployment, of the spoke's commit; the hub's decoy never reported`,
    );
    t.match(all[0]!.payload, { cluster: 'prod-eu', namespace: 'apps', sourceNamespace: 'flux-system', [key]: app });
  }
  t.same(workloadReads(world.kube.requests), [], 'no workload, pod or service account read went to the hub');
  t.ok(workloadReads(spoke.kube.requests).length > 0, 'the workloads were read in the spoke');
  t.same(
    [...new Set(spoke.kube.requests.map((r) => r.authorization))],
    [`Bearer ${spoke.token}`],
    "every spoke request carried the spoke's token, never the bridge's own",
  );
  t.notOk(
    spoke.kube.requests.some((r) => r.authorization === `Bearer ${KUBE_TOKEN}`),
    "the bridge's own token never reached the spoke",
  );
  t.equal(world.kube.writes().length + spoke.kube.writes().length, 0, 'the bridge never writes to a cluster');
  t.same(world.github.violations, []);
});
