/**
 * The real bridge process under a write budget (issue 24): a secondary limit in the middle of a rollout
 * (the rollout finishes during the pause: each deployment then gets its `success`, never the `in_progress`
 * it missed); a budget that holds against a simulator enforcing the same windows (no 403 at all, the backlog
 * in /state and /metrics); and the order under backlog (production, then other environments, then previews).
 */
import t from 'tap';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { deployment } from '../harness/flux-objects.js';
import { startWorld, type World } from '../harness/world.js';
import { OPT_IN, READY, clientStates, finishRollout, putKustomization, sha } from './scenario.js';

/** Puts `names` as opted-in Deployments of their own repositories, rolling out (or finished), in one Ready Kustomization. */
function putRollout(
  world: World,
  names: string[],
  rollout: 'progressing' | 'complete',
  extra: (name: string) => Record<string, string> = () => ({}),
) {
  for (const name of names)
    world.kube.put(
      deployment({
        namespace: 'apps',
        name,
        annotations: {
          ...OPT_IN,
          'github-deployment-bridge.io/repository': `acme/${name}`,
          'github-deployment-bridge.io/commit': sha(`budget-${name}`),
          ...extra(name),
        },
        rollout,
        containers: [{ name: 'app', image: `ghcr.io/acme/${name}:1` }],
      }),
    );
  putKustomization(world, 'apps', names, READY);
}

async function post(bridge: BridgeProcess): Promise<void> {
  const r = await bridge.post(fluxEvent('Kustomization', 'flux-system', 'apps', { reason: 'ReconciliationSucceeded' }));
  if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
}

t.test('a secondary limit in the middle of a rollout: after the pause each deployment gets success, no in_progress', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const names = ['web', 'api', 'worker'];
  // The first status (web's in_progress) meets a secondary limit: the token's requests pause for 6 s.
  world.github.inject({ method: 'POST', path: /\/statuses$/, ...world.github.faults.secondaryRateLimit(6) });
  const bridge = await world.bridge();
  putRollout(world, names, 'progressing');
  await post(bridge);
  const paused = await bridge.waitFor('the token paused', async () => {
    const s = await bridge.state();
    return s.github.pausedScopes.find((p) => p.scope === 'token' && p.kind === 'secondary');
  });
  const refusedAt = world.github.requests.find((r) => r.status === 403)!.time;
  // The rollouts finish during the pause.
  for (const n of names) finishRollout(world, n);
  await bridge.waitFor(
    'every deployment shows success',
    () => names.every((n) => clientStates(world.github.deployments('acme', n)[0]).includes('success')),
    60_000,
  );
  for (const n of names) t.same(clientStates(world.github.deployments('acme', n)[0]), ['success'], `${n}: success and nothing else`);
  t.same(
    world.github.writes().filter((w) => (w.body as { state?: string }).state === 'in_progress'),
    [],
    'no in_progress reached GitHub after the pause',
  );
  const until = Date.parse(paused.until ?? '');
  t.same(
    world.github.requests.filter((r) => r.time > refusedAt && r.time < until - 50).map((r) => `${r.method} ${r.path}`),
    [],
    'nothing sent during the pause',
  );
  t.equal(world.github.requests.filter((r) => r.status === 403).length, 1, 'one secondary limit, not repeated');
  t.same(world.github.violations, []);
});

t.test('the budget holds: a simulator enforcing the same windows never answers a secondary limit', async (t) => {
  const windows = [
    { count: 4, ms: 4_000 },
    { count: 10, ms: 30_000 },
  ];
  const world = await startWorld({ github: { secondaryLimits: { windows } } });
  t.teardown(() => world.close());
  const names = Array.from({ length: 8 }, (_, i) => `svc-${i}`);
  const bridge = await world.bridge({ GITHUB_WRITE_BUDGET: '4/4s,10/30s', GITHUB_WRITE_INTERVAL: '0s' });
  putRollout(world, names, 'complete');
  await post(bridge);
  // 8 creates and 8 successes: more than the 30 s window holds, so some wait their turn, shown in /state.
  const backlog = await bridge.waitFor('a backlog in /state', async () => {
    const s = await bridge.state();
    const scope = s.github.writeBudget?.scopes.find((x) => x.scope === 'token');
    return scope !== undefined && scope.waiting > 0 && { state: s, scope, metrics: await bridge.metrics() };
  });
  t.equal(backlog.state.github.writeBudget?.budget, '4/4s,10/30s');
  t.ok(backlog.scope.drainsInSeconds > 0, 'it says how long the backlog takes to drain');
  const freesAt = backlog.scope.budgetFreesAt;
  t.ok(freesAt !== null && Date.parse(freesAt) >= Date.now() - 5_000, 'and when the budget frees');
  t.match(backlog.metrics, /^gdb_forge_write_backlog\{forge="github",scope="token"\} [1-9]/m);
  t.match(backlog.metrics, /^gdb_forge_budget_frees_at_timestamp_seconds\{forge="github",scope="token"\} \d+/m);
  await bridge.waitFor(
    'every workload shows success',
    () => names.every((n) => clientStates(world.github.deployments('acme', n)[0]).includes('success')),
    90_000,
  );
  t.equal(world.github.secondaryRefusals(), 0, 'no secondary limit answered');
  t.equal(world.github.requests.filter((r) => r.status === 403 || r.status === 429).length, 0);
  for (const n of names) t.same(clientStates(world.github.deployments('acme', n)[0]), ['success'], n);
  t.equal(world.github.writes().length, 16, 'a create and a success each');
  const after = await bridge.state();
  t.equal(after.github.paused, null, 'never paused');
});

t.test('the order under backlog: production first, then other environments, then previews', async (t) => {
  const world = await startWorld({ github: { secondaryLimits: { windows: [{ count: 1, ms: 6_000 }] } } });
  t.teardown(() => world.close());
  const kinds: Record<string, Record<string, string>> = {
    'pr-7': { 'github-deployment-bridge.io/environment': 'pr-7', 'github-deployment-bridge.io/transient': 'true' },
    staging: { 'github-deployment-bridge.io/environment': 'staging' },
    prod: { 'github-deployment-bridge.io/environment': 'production' },
  };
  // One write per 6 s (longer than a write may wait in place); listed worst first: the preview asks first.
  const names = ['pr-7', 'staging', 'prod'];
  const bridge = await world.bridge({ GITHUB_WRITE_BUDGET: '1/6s', GITHUB_WRITE_INTERVAL: '0s' });
  putRollout(world, names, 'complete', (n) => kinds[n] ?? {});
  await post(bridge);
  await bridge.waitFor(
    'every workload shows success',
    () => names.every((n) => clientStates(world.github.deployments('acme', n)[0]).includes('success')),
    60_000,
  );
  const successes = world.github
    .writes()
    .filter((w) => (w.body as { state?: string }).state === 'success')
    .map((w) => /^\/repos\/acme\/([^/]+)\//.exec(w.path)?.[1]);
  t.same(successes, ['prod', 'staging', 'pr-7'], 'the final statuses arrived in the order of what they are worth');
  t.equal(world.github.secondaryRefusals(), 0);
  t.same(world.github.violations, []);
});
