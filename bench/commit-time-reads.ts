/**
 * Benchmark 10, the cost of the DORA lead time: forge reads of commit times per delivery lifecycle. Each of COMMITS
 * commits goes preview (`pr-<n>`, transient) → staging → production on two workloads (the app and its worker), one
 * bridge per run; a last commit stops at its preview. Counted from the GitHub simulator's request log: commit reads,
 * against the minimum (one per commit that reached a counted environment), with DORA's default (production) and
 * with `DORA_ENVIRONMENTS='*'`, and after a restart on the same database.
 *   npm run bench -- commit-time-reads        (about a minute)
 */
import { fluxEvent } from '../test/harness/bridge-process.js';
import { startWorld } from '../test/harness/world.js';
import { READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { deployment } from '../test/harness/workload-objects.js';
import { finishRollout } from '../test/harness/rollouts.js';
import { annotated, load, say, settled } from './common.js';

const COMMITS = Number(process.env.COMMITS ?? 5);
const WAIT_MS = 120_000;
/** Where each commit goes, in order: its workloads per environment. */
const STAGES: Array<[environment: (n: number) => string, workloads: string[]]> = [
  [(n) => `pr-${n}`, ['web-preview']],
  [() => 'staging', ['web-staging']],
  [() => 'production', ['web', 'worker']],
];

interface Outcome {
  reads: number;
  afterRestart: number;
  lifecycles: number;
  leadTimes: number;
  violations: number;
  /** ms from each production success settled to its lead time known. */
  delays: number[];
}

async function run(doraEnvironments: string | undefined): Promise<Outcome> {
  const world = await startWorld({ github: { repos: ['acme/web'] } });
  try {
    const env = { TRANSIENT_ENVIRONMENTS: 'pr-*', ...(doraEnvironments === undefined ? {} : { DORA_ENVIRONMENTS: doraEnvironments }) };
    let bridge = await world.bridge(env);
    const deploy = async (commit: string, environment: string, workloads: string[], source: string) => {
      for (const w of workloads) {
        world.kube.put(
          deployment({
            namespace: 'apps',
            name: w,
            annotations: { ...annotated('web', commit), 'github-deployment-bridge.io/environment': environment },
            containers: [{ name: 'app', image: `registry.invalid/acme/web:${commit.slice(0, 7)}` }],
          }),
        );
        finishRollout(world.kube, 'apps', w);
      }
      putKustomization(world, source, workloads, READY);
      await bridge.post(fluxEvent('Kustomization', 'flux-system', source, { reason: 'ReconciliationSucceeded' }));
      await settled(bridge, WAIT_MS);
    };
    const known = async () => (await bridge.state()).dora?.commitTimes?.known ?? 0;
    const delays: number[] = [];
    for (let n = 1; n <= COMMITS; n++) {
      const commit = sha(`commit-time-reads-${n}`);
      for (const [environment, workloads] of STAGES) await deploy(commit, environment(n), workloads, `web-${environment(n)}`);
      // From the production success settled to its commit time known (the lead time shown), polled every 50 ms.
      const from = Date.now();
      while ((await known()) < n && Date.now() - from < WAIT_MS) await new Promise((r) => setTimeout(r, 50));
      delays.push(Date.now() - from);
    }
    // A commit that never leaves its preview.
    await deploy(sha('commit-time-reads-abandoned'), `pr-${COMMITS + 1}`, ['web-preview'], 'web-preview-abandoned');
    await bridge.waitFor('every lead time known', async () => (await known()) === COMMITS, WAIT_MS);
    const reads = world.github.commitReads().length;
    await bridge.kill('SIGTERM');
    bridge = await world.bridge(env);
    await settled(bridge, WAIT_MS);
    // Longer than the reader's interval: a restart that re-read would show it.
    await new Promise((r) => setTimeout(r, 20_000));
    const state = await bridge.state();
    const leadTimes = (state.dora?.environments ?? []).filter((e) => e.leadTimeMedianSeconds !== null).length;
    await bridge.kill('SIGTERM');
    return {
      reads,
      afterRestart: world.github.commitReads().length - reads,
      lifecycles: COMMITS,
      leadTimes,
      violations: world.github.violations.length,
      delays,
    };
  } finally {
    await world.close();
  }
}

say(`commit-time reads, ${COMMITS} commits each preview → staging → production (2 workloads), one more preview only; ${load()}`);
for (const [label, dora] of [
  ['DORA default (production)', undefined],
  ["DORA_ENVIRONMENTS='*'", '*'],
] as const) {
  const o = await run(dora);
  say(
    `${label}: ${o.reads} reads for ${o.lifecycles} lifecycles (minimum ${o.lifecycles}: one per commit that reached a counted environment; ` +
      `${(o.reads / o.lifecycles).toFixed(2)} per lifecycle), ${o.afterRestart} after a restart, ${o.leadTimes} environments with a lead time, ` +
      `${o.violations} schema violations; lead time known ${Math.max(...o.delays)} ms at most after the success settled (${o.delays.join(', ')})`,
  );
}
