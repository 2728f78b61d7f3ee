/**
 * Benchmark 3b, a rollout under GitHub's secondary rate limit: WORKLOADS opted-in workloads (10 per
 * Kustomization, one repository each, repository and commit annotated) roll out a new commit against
 * a simulator that refuses more than WRITES_PER_MINUTE writes in any 60 s window (403 "secondary rate
 * limit" with retry-after, as GitHub answers). The workloads stay progressing for ROLLOUT_S seconds,
 * then finish and their Kustomizations turn Ready. Measured: time from the first Flux event until
 * GitHub shows `success` as the latest status of every workload's deployment, against the theoretical
 * minimum (2 writes per workload, a create and the `success`, at WRITES_PER_MINUTE); writes used;
 * 403/429 answers; whether the bridge sent anything while paused.
 *   WORKLOADS=500 node dist/bench/rollout.js          (needs `npx tsc -p .` first; ~20 min at 500)
 *   GITHUB_WRITE_INTERVAL=0s WORKLOADS=500 node dist/bench/rollout.js   (the bridge's write spacing off)
 */
import { fluxEvent } from '../test/harness/bridge-process.js';
import { deployment } from '../test/harness/flux-objects.js';
import { startWorld, type World } from '../test/harness/world.js';
import { PROGRESSING, READY, finishRollout, putKustomization, sha } from '../test/e2e/scenario.js';
import { annotated, formatTally, githubEndpoint, load, say, settled, tally, writeInterval } from './common.js';

const WORKLOADS = Number(process.env.WORKLOADS ?? 500);
const PER_SOURCE = 10;
const WRITES_PER_MINUTE = Number(process.env.WRITES_PER_MINUTE ?? 80);
/** How long the workloads roll out (progressing) before they finish and Flux reports Ready. */
const ROLLOUT_S = Number(process.env.ROLLOUT_S ?? 60);
const PAUSE_MSG = "GitHub rate limit: pausing this credential's requests";

const repoOf = (i: number) => `r-${i}`;
const commitOf = (i: number) => sha(`rollout-${i}-b`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Workloads whose deployment of the new commit shows `success` as its latest status. */
function finalCount(world: World): number {
  let n = 0;
  for (let i = 0; i < WORKLOADS; i++) {
    const ds = world.github.deployments('acme', repoOf(i)).filter((d) => d.sha === commitOf(i));
    if (ds.length === 1 && ds[0]!.statuses.at(-1)?.state === 'success') n++;
  }
  return n;
}

/** The most writes that arrived in any 60 s window. */
function peakPerMinute(times: number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < t.length; hi++) {
    while (t[hi]! - t[lo]! >= 60_000) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

async function main(): Promise<void> {
  const spacing = writeInterval();
  const sources = Math.ceil(WORKLOADS / PER_SOURCE);
  const world = await startWorld({ github: { writesPerMinute: WRITES_PER_MINUTE } });
  try {
    // The budget the simulator enforces (its minute window only), as GHES administrators would set it.
    const bridge = await world.bridge({ ...spacing.env, GITHUB_WRITE_BUDGET: `${WRITES_PER_MINUTE}/1m` });
    await settled(bridge); // the startup resync sees an empty cluster
    const from = world.github.requests.length;
    say(
      `rollout: ${WORKLOADS} workloads in ${sources} Kustomizations, simulator limit ${WRITES_PER_MINUTE} writes/min, rollout ${ROLLOUT_S} s, ${spacing.label}; ${load()}`,
    );

    // Flux applies the new commit: every workload starts rolling out, every Kustomization is progressing.
    for (let i = 0; i < WORKLOADS; i++) {
      world.kube.put(
        deployment({
          namespace: 'apps',
          name: `w-${i}`,
          annotations: annotated(repoOf(i), commitOf(i)),
          rollout: 'progressing',
          containers: [{ name: 'app', image: `registry.invalid/acme/${repoOf(i)}:${commitOf(i).slice(0, 7)}` }],
        }),
      );
    }
    const members = (s: number) =>
      Array.from({ length: Math.min(PER_SOURCE, WORKLOADS - s * PER_SOURCE) }, (_, k) => `w-${s * PER_SOURCE + k}`);
    for (let s = 0; s < sources; s++) putKustomization(world, `src-${s}`, members(s), PROGRESSING, 2);
    const t0 = Date.now();
    for (let s = 0; s < sources; s++) {
      const r = await bridge.post(fluxEvent('Kustomization', 'flux-system', `src-${s}`, { reason: 'Progressing' }));
      if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
    }
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + ROLLOUT_S * 1000 - Date.now())));
    // The rollouts finish; Flux's health checks pass and it reports every Kustomization Ready.
    for (let i = 0; i < WORKLOADS; i++) finishRollout(world, `w-${i}`);
    for (let s = 0; s < sources; s++) putKustomization(world, `src-${s}`, members(s), READY, 2);
    const readyAt = Date.now();
    for (let s = 0; s < sources; s++) {
      const r = await bridge.post(fluxEvent('Kustomization', 'flux-system', `src-${s}`, { reason: 'ReconciliationSucceeded' }));
      if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
    }
    let last = 0;
    let lastReport = Date.now();
    const timeoutMs = (WORKLOADS * 4 * 1.5 + 600) * 1000;
    await bridge.waitFor(
      'every workload shows success',
      () => {
        last = finalCount(world);
        if (Date.now() - lastReport > 60_000) {
          lastReport = Date.now();
          say(
            `  … ${secs(Date.now() - t0)}: ${last}/${WORKLOADS} final, ${world.github.writes().length} writes, ${world.github.requests.filter((q) => q.status === 403 || q.status === 429).length} refusals; ${load()}`,
          );
        }
        return last === WORKLOADS;
      },
      timeoutMs,
    );
    const finalAt = Date.now();
    const atFinal = world.github.requests.slice(from);
    await settled(bridge);
    const all = world.github.requests.slice(from);
    const writes = all.filter((q) => q.didWork && (q.method === 'POST' || q.method === 'DELETE'));
    const writesAtFinal = atFinal.filter((q) => q.didWork && (q.method === 'POST' || q.method === 'DELETE')).length;
    const refused = all.filter((q) => q.status === 403 || q.status === 429);
    const byKind = tally(
      writes.map((q) => (q.path.endsWith('/statuses') ? `status ${(q.body as { state: string }).state}` : 'create deployment')),
    );

    // The bridge's pauses (from its log) and any request that reached GitHub while one was running.
    const pauses = bridge.logs.filter((l) => l.msg === PAUSE_MSG).map((l) => ({ at: Number(l.time), until: Date.parse(String(l.until)) }));
    const duringPause = all.filter((q) => pauses.some((p) => q.time > p.at + 20 && q.time < p.until));
    // How long after the last refusal each of those arrived (a request already on its way when the 403 came back is not a breach).
    const sinceRefusal = duringPause.slice(0, 5).map((q) => {
      const r = refused.filter((x) => x.time <= q.time).at(-1);
      return `${githubEndpoint(q.method, q.path)} → ${q.status} ${r ? `${q.time - r.time} ms after a refusal` : ''}`;
    });
    const pausedMs = pauses.reduce((sum, p, k) => sum + Math.max(0, Math.min(p.until, pauses[k + 1]?.at ?? Infinity) - p.at), 0);

    const minimum = 2 * WORKLOADS;
    const minMs = (minimum / WRITES_PER_MINUTE) * 60_000;
    const windowMs = Math.floor((minimum - 1) / WRITES_PER_MINUTE) * 60_000;
    const took = finalAt - t0;
    say(
      `  final truth (success latest on all ${WORKLOADS}) ${secs(took)} after the first event (${secs(finalAt - readyAt)} after the Ready events); ${load()}`,
    );
    say(
      `  theoretical minimum: ${minimum} writes (create + success per workload) ÷ ${WRITES_PER_MINUTE}/min = ${secs(minMs)} ` +
        `(a sliding window lets the first ${WRITES_PER_MINUTE} go at once: ${secs(windowMs)}); measured ÷ minimum = ${(took / minMs).toFixed(2)}`,
    );
    say(
      `  writes: ${writesAtFinal} until the final truth, ${writes.length} in all (minimum ${minimum}, ratio ${(writes.length / minimum).toFixed(2)}); ` +
        `peak ${peakPerMinute(writes.map((q) => q.time))} writes in a 60 s window; mean ${(writes.length / (took / 60_000)).toFixed(1)} writes/min`,
    );
    say(formatTally(byKind));
    say(
      `  refused by the limit: ${refused.length} (${
        tally(refused.map((q) => `${q.status} ${q.method === 'GET' ? 'GET' : 'write'}`))
          .map(([k, n]) => `${k}×${n}`)
          .join(', ') || 'none'
      }); ` +
        `bridge pauses ${pauses.length}, ${secs(pausedMs)} paused in all; requests that reached GitHub during a pause: ${duringPause.length}`,
    );
    if (sinceRefusal.length > 0) say(`    during a pause: ${sinceRefusal.join('; ')}`);
    say(
      `  GitHub requests: ${all.length} (${all.filter((q) => q.method === 'GET').length} reads); schema violations ${world.github.violations.length}`,
    );
    say(formatTally(tally(all.map((q) => `${githubEndpoint(q.method, q.path)} → ${q.status ?? 'none'}`))));
    const dup = Array.from({ length: WORKLOADS }, (_, i) => world.github.deployments('acme', repoOf(i)).length).filter(
      (n) => n !== 1,
    ).length;
    say(`  workloads with other than exactly one deployment: ${dup}`);
  } finally {
    await world.close();
  }
}

await main();
