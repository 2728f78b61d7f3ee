import t from 'tap';
import { startWorld } from '../harness/world.js';

/** Far above the shutdown timer (15 s): only a process that never stops reaches it. */
const EXIT_BOUND_MS = 45_000;

t.test('SIGTERM stops the bridge with exit 0 when the reader of its stdout is gone', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  // Debug logs every request: lines keep coming after the pipe broke.
  const bridge = await world.bridge({ LOG_LEVEL: 'debug' });
  t.equal((await bridge.get('/healthz')).status, 200);
  bridge.child.stdout?.destroy();
  // Writes after the reader closed: the request logs hit the broken pipe before the signal does.
  for (let i = 0; i < 5; i++) t.equal((await bridge.get('/healthz')).status, 200, 'still serving with no log reader');
  bridge.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    new Promise<{ code: number | null; signal: string | null }>((r) => bridge.child.once('exit', (code, signal) => r({ code, signal }))),
    new Promise<'still running'>((r) => {
      timer = setTimeout(() => r('still running'), EXIT_BOUND_MS);
    }),
  ]);
  clearTimeout(timer);
  if (outcome === 'still running') bridge.child.kill('SIGKILL');
  t.same(outcome, { code: 0, signal: null }, 'exited by itself, cleanly');
});
