/**
 * Runtime soundness (issue 19): the Node.js the image ships with the SQLite driver never aborts.
 * 1. STOPS (200) starts of the real bridge process (the Dockerfile's node flags, against the simulated
 *    cluster and GitHub, one database reused as a pod's volume is), every EVENT_EVERY-th one reporting a
 *    rollout first, each stopped with SIGTERM: its exit code and whether its last log line ('stopped') was
 *    written.
 * 2. GC_RUNS (20) processes under `--expose-gc` (bench/sqlite-gc-loop.ts), each opening, using, closing and
 *    dropping GC_LOOPS (300) connections of the store (openDatabase, migrations, kept statements), with
 *    forced GCs run synchronously and from V8's own tasks, and exiting with connections still open: the
 *    pattern that aborted better-sqlite3 12 on Node 24 in every run (RELIABILITY.md).
 *   node dist/bench/runtime-soundness.js      (after `npx tsc -p .`; run through npm for the image's Node)
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fluxEvent } from '../test/harness/bridge-process.js';
import { startWorld } from '../test/harness/world.js';
import { READY, putKustomization, sha } from '../test/e2e/scenario.js';
import { plentifulBudget, putAnnotatedDeployment, say } from './common.js';
import { median, percentile } from './stats.js';

const STOPS = Number(process.env.STOPS ?? 200);
const EVENT_EVERY = Number(process.env.EVENT_EVERY ?? 10);
const GC_RUNS = Number(process.env.GC_RUNS ?? 20);
const GC_LOOPS = Number(process.env.GC_LOOPS ?? 300);

/** How each process ended: `0`, `134`, `SIGABRT`, … */
type Ending = string;

function tallyOf(endings: Ending[]): string {
  const counts = new Map<Ending, number>();
  for (const e of endings) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].map(([e, n]) => `exit ${e}: ${n}`).join(', ');
}

const isAbort = (e: Ending) => e === '134' || e === 'SIGABRT' || e === 'SIGSEGV' || e === '139';

async function startStops(): Promise<number> {
  const world = await startWorld();
  const endings: Ending[] = [];
  const stopMs: number[] = [];
  let lastLineWritten = 0;
  try {
    for (let i = 0; i < STOPS; i++) {
      const bridge = await world.bridge({ GITHUB_WRITE_INTERVAL: '0s', ...plentifulBudget() });
      if (i % EVENT_EVERY === 0) {
        const name = `web-${i}`;
        putAnnotatedDeployment(world, name, 'web', sha(`soundness-${i}`));
        putKustomization(world, name, [name], READY);
        const res = await bridge.post(fluxEvent('Kustomization', 'flux-system', name, { reason: 'ReconciliationSucceeded' }));
        if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
        await bridge.waitFor('the rollout reported', () =>
          world.github.deployments('acme', 'web').some((d) => d.sha === sha(`soundness-${i}`)),
        );
      }
      const t0 = process.hrtime.bigint();
      const code = await bridge.kill('SIGTERM');
      stopMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      endings.push(code === null ? String(bridge.child.signalCode) : String(code));
      // 'exit' may come before the last of stdout has been read: wait for the pipe to close.
      const out = bridge.child.stdout;
      if (out && !out.closed) await new Promise((r) => out.once('close', r));
      const last = bridge.logs.at(-1)?.msg;
      if (last === 'stopped') lastLineWritten++;
      else say(`  start ${i}: exit ${endings.at(-1)}, last log line ${JSON.stringify(last)}`);
    }
  } finally {
    await world.close();
  }
  const aborts = endings.filter(isAbort).length;
  say(`bridge starts stopped by SIGTERM: ${STOPS} (${Math.ceil(STOPS / EVENT_EVERY)} of them after reporting a rollout)`);
  say(`  ${tallyOf(endings)}; aborts: ${aborts}; last log line ('stopped') written: ${lastLineWritten}/${STOPS}`);
  say(
    `  SIGTERM → exit: median ${median(stopMs).toFixed(0)} ms, p99 ${percentile(stopMs, 99).toFixed(0)} ms, max ${Math.max(...stopMs).toFixed(0)} ms`,
  );
  return aborts + (STOPS - lastLineWritten) + endings.filter((e) => e !== '0').length;
}

function gcLoops(): number {
  const loop = join(fileURLToPath(new URL('.', import.meta.url)), 'sqlite-gc-loop.js');
  const endings: Ending[] = [];
  for (let i = 0; i < GC_RUNS; i++) {
    const r = spawnSync(process.execPath, ['--expose-gc', loop, String(GC_LOOPS)], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    endings.push(r.status === null ? String(r.signal) : String(r.status));
    if (r.status !== 0) say(`  run ${i}: ${r.stderr.split('\n').slice(0, 3).join(' | ')}`);
  }
  const aborts = endings.filter(isAbort).length;
  say(
    `connection loops under forced GC: ${GC_RUNS} processes × ${GC_LOOPS} connections (open, use, close or drop open, exit with some open)`,
  );
  say(`  ${tallyOf(endings)}; aborts: ${aborts}`);
  return endings.filter((e) => e !== '0').length;
}

const driver = (createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string }).version;
say(`Node.js ${process.version}, better-sqlite3 ${driver}`);
const failures = gcLoops() + (await startStops());
process.exit(failures > 0 ? 1 : 0);
