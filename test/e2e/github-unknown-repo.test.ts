/**
 * A workload naming a repository that is not on GitHub: the simulator answers 404 as GitHub does (it makes no
 * repository up), and the real bridge reports GitHub's refusal (a skip with its reason in /state, a refusal
 * counted in /metrics) rather than a deployment; the repository beside it is reported as usual. With batched
 * look-ups GraphQL's `repository` is null with NOT_FOUND, and the look-up goes to REST, which says why.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { startWorld } from '../harness/world.js';
import { READY, annotated, clientStates, idle, putDeployment, putKustomization, sha } from './scenario.js';

for (const batched of [false, true]) {
  t.test(
    `a repository GitHub does not have: skipped as GitHub's 404, not reported as a success (batched look-ups ${batched})`,
    async (t) => {
      // No `repos`: the simulator's default owner (acme) has every repository; globex has none.
      const world = await startWorld();
      t.teardown(() => world.close());
      putDeployment(world, 'web', 'ghcr.io/acme/web:1', annotated('acme/web', sha('known-1')));
      putDeployment(world, 'lost', 'ghcr.io/globex/lost:1', annotated('globex/lost', sha('lost-1')));
      putKustomization(world, 'apps', ['web', 'lost'], READY);
      const bridge = await world.bridge({ GITHUB_BATCHED_LOOKUPS: String(batched) });
      await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps'));
      await bridge.waitFor('acme/web success', () => clientStates(world.github.deployments('acme', 'web')[0]).includes('success'));
      const state = await bridge.waitFor('idle with the skip', async () => {
        const s = await idle(bridge);
        return s !== false && s.skipped.length > 0 && s;
      });

      t.match(state.skipped, [
        {
          workload: 'Deployment/apps/lost',
          code: 'github_not_found',
          reason: /^globex\/lost not found, or GITHUB_TOKEN cannot see it/,
        },
      ]);
      t.match(state.github.refusals, [{ key: 'repo:github:globex/lost', code: 'github_not_found', waiting: true }]);
      t.match(state.deployments, [{ owner: 'acme', repo: 'web', state: 'success' }], 'only acme/web is reported');
      t.equal(state.deployments.length, 1);
      t.same(world.github.deployments('globex', 'lost'), [], 'nothing made up on GitHub');
      const lost = world.github.requests.filter((r) => r.path.startsWith('/repos/globex/lost/'));
      t.ok(lost.length > 0, 'GitHub was asked');
      t.same(
        lost.map((r) => r.status),
        lost.map(() => 404),
        'and answered 404 each time',
      );
      if (batched) {
        const query = world.github.graphqlQueries().find((r) => JSON.stringify(r.body).includes('lost'));
        t.ok(query, 'the batched look-up asked GraphQL about globex/lost');
      }
      t.match(await bridge.metrics(), /gdb_forge_refusals\{forge="github",code="github_not_found"\} 1/);
      t.same(world.github.violations, []);
    },
  );
}
