/**
 * Benchmark 3c, write economy on GitLab: one merge-request preview's lifecycle (environment
 * `review/mr-7`, transient, with a URL), commit A running → success → commit B running → success,
 * then the source deleted so the environment is stopped; GitLab requests by endpoint against the
 * minimum (a create running and a success per commit, one environment PUT, one stop; the ref and the
 * environment read once), the writes of 20 repeated identical Flux events, and the same run once more
 * with a restart (SIGTERM, started again on the same DATABASE_PATH) between B's running and the cleanup.
 *   node dist/bench/gitlab-economy.js        (needs `npx tsc -p .` first; about 15 s)
 */
import { fluxEvent } from '../test/harness/bridge-process.js';
import type { RecordedRequest } from '../test/harness/gitlab-sim.js';
import { startWorld } from '../test/harness/world.js';
import { PROGRESSING, READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { formatTally, gitlabEndpoint, load, putAnnotatedDeployment, repeatEvents, say, settled, tally } from './common.js';

const REPEATS = 20;
const ENVIRONMENT = 'review/mr-7';
const SETTINGS = {
  ENVIRONMENT,
  TRANSIENT_ENVIRONMENTS: 'review/*',
  ENVIRONMENT_URL: 'https://mr-7.preview.example.com/',
  CLEANUP_GRACE: '1s',
};
const WAIT_MS = 60_000;
/** Per commit a create (running) and its success; one PUT of the environment's URL; one stop at cleanup. */
const MINIMUM_WRITES = 2 * 2 + 1 + 1;
/** Per commit its branches; the project (default branch) once; the environment after its first deployment and at cleanup; GET /user. */
const MINIMUM_READS = 2 + 1 + 2 + 1;

interface Outcome {
  requests: RecordedRequest[];
  shown: string[];
  repeated: { writes: number; requests: number };
  violations: number;
  lifecycleMs: number;
}

const isWrite = (r: RecordedRequest) => r.didWork && (r.method === 'POST' || r.method === 'PUT');
const isRead = (r: RecordedRequest) => r.method === 'GET';
const count = (list: RecordedRequest[], f: (r: RecordedRequest) => boolean) => list.filter(f).length;

async function run(restart: boolean): Promise<Outcome> {
  const a = sha('gitlab-economy-a');
  const b = sha('gitlab-economy-b');
  const world = await startWorld({ gitlab: true, githubOff: true });
  try {
    const gitlab = world.gitlab;
    if (gitlab === undefined) throw new Error('the world has no GitLab simulator');
    const project = () => gitlab.project('acme/web');
    const has = (commit: string, status: string) => () =>
      project()?.deployments.some((d) => d.sha === commit && d.status === status) === true;
    putAnnotatedDeployment(world, 'web', 'web', a, gitlab.url);
    putKustomization(world, 'web', ['web'], PROGRESSING);
    let bridge = await world.bridge(SETTINGS);
    const started = Date.now();
    const step = async (commit: string, cond: typeof READY, generation: number, status: string) => {
      putKustomization(world, 'web', ['web'], cond, generation);
      const reason = status === 'success' ? 'ReconciliationSucceeded' : 'Progressing';
      await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason }));
      await bridge.waitFor(`${commit.slice(0, 7)} ${status}`, has(commit, status), WAIT_MS);
      await settled(bridge);
    };
    await step(a, PROGRESSING, 1, 'running');
    await step(a, READY, 1, 'success');
    putAnnotatedDeployment(world, 'web', 'web', b, gitlab.url);
    await step(b, PROGRESSING, 2, 'running');
    await step(b, READY, 2, 'success');
    const lifecycleMs = Date.now() - started;

    const { from: repeatsFrom, to: repeatsTo, ...repeated } = await repeatEvents(bridge, gitlab, 'web', REPEATS);

    if (restart) {
      await bridge.kill('SIGTERM');
      bridge = await world.bridge(SETTINGS); // the world's DATABASE_PATH: the same store
    }
    // The merge request is closed: Flux deletes the preview; after CLEANUP_GRACE its environment is stopped.
    world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web');
    world.kube.delete('apps/v1', 'Deployment', 'apps', 'web');
    await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }));
    await bridge.waitFor('environment stopped', () => project()?.environments.some((e) => e.state === 'stopped') === true, WAIT_MS);
    await settled(bridge);
    const p = project();
    return {
      requests: [...gitlab.requests.slice(0, repeatsFrom), ...gitlab.requests.slice(repeatsTo)],
      shown: [
        ...(p?.deployments.map((d) => `deployment ${d.sha.slice(0, 7)} ref ${d.ref}: ${d.status}`) ?? []),
        ...(p?.environments.map((e) => `environment ${e.name} (${e.tier}, ${e.external_url ?? 'no URL'}): ${e.state}`) ?? []),
      ],
      repeated,
      violations: gitlab.violations.length,
      lifecycleMs,
    };
  } finally {
    await world.close();
  }
}

function report(o: Outcome): void {
  for (const line of o.shown) say(`  ${line}`);
  const writes = count(o.requests, isWrite);
  const reads = count(o.requests, isRead);
  say(
    `  writes: ${writes} (minimum ${MINIMUM_WRITES}: create running + success per commit, 1 environment PUT, 1 stop), ratio ${(writes / MINIMUM_WRITES).toFixed(2)}`,
  );
  say(
    `  reads: ${reads} (minimum ${MINIMUM_READS}: the branches per commit, the project once, the environment twice, GET /user), ratio ${(reads / MINIMUM_READS).toFixed(2)}; total GitLab requests ${o.requests.length}; schema violations ${o.violations}`,
  );
}

async function main(): Promise<void> {
  const plain = await run(false);
  say(
    `gitlab-economy: one preview lifecycle (A running → success → B running → success) ${(plain.lifecycleMs / 1000).toFixed(1)} s wall, then the source deleted (CLEANUP_GRACE=${SETTINGS.CLEANUP_GRACE}) → environment stopped; ${load()}`,
  );
  say('  GitLab requests by endpoint (answer status), lifecycle and cleanup:');
  say(formatTally(tally(plain.requests.map((r) => `${gitlabEndpoint(r.method, r.path, r.query)} → ${r.status ?? 'none'}`))));
  report(plain);
  say(`  ${REPEATS} repeated identical events: ${plain.repeated.writes} GitLab writes, ${plain.repeated.requests} GitLab requests in all`);

  const restarted = await run(true);
  say(`gitlab-economy with a restart (SIGTERM before the cleanup, started again on the same DATABASE_PATH); ${load()}`);
  report(restarted);
  const extra = (f: (r: RecordedRequest) => boolean) => count(restarted.requests, f) - count(plain.requests, f);
  say(`  the restart cost ${extra(isRead)} extra reads, ${extra(isWrite)} extra writes (the stop still sent, once)`);
}

await main();
