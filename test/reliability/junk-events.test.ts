/**
 * Issue 22, item 2: signed events naming Kustomizations that do not exist leave nothing behind. Before,
 * each wrote a permanent `sources` row: 3,000 of them pushed the real source out of /state's first 500,
 * and a restart kept them all.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import t from 'tap';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { queueIdle } from '../harness/state-body.js';
import { startWorld } from '../harness/world.js';
import { READY, putKustomization } from '../e2e/scenario.js';

const JUNK = 3000;
const CONCURRENCY = 16;

async function sendJunk(bridge: BridgeProcess): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < JUNK) {
        const n = next++;
        statuses.push((await bridge.post(fluxEvent('Kustomization', 'flux-system', `junk-${n}`))).status);
      }
    }),
  );
  return statuses;
}

t.test('3,000 signed events for objects that do not exist: no row stays, the real source stays in /state', async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  // Named to sort after every junk name: by name, the old /state listed it last.
  putKustomization(world, 'zz-real', [], READY);
  const env = { WEBHOOK_RATE_PER_MINUTE: '100000' };
  let bridge = await world.bridge(env);
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'zz-real'))).status, 202);
  await bridge.waitFor('the real source read', async () => (await bridge.state()).fluxObjects.some((s) => s.name === 'zz-real'));

  const statuses = await sendJunk(bridge);
  t.same([...new Set(statuses)], [202], 'every junk event is signed and accepted');
  await bridge.waitFor('the queue drained', async () => queueIdle(await bridge.state()), 120_000);
  const names = (await bridge.state()).fluxObjects.map((s) => s.name);
  t.same(names, ['zz-real'], 'only the real source is listed');

  await bridge.kill('SIGTERM');
  bridge = await world.bridge(env);
  t.same(
    (await bridge.state()).fluxObjects.map((s) => s.name),
    ['zz-real'],
    'after a restart too',
  );
  await bridge.kill('SIGTERM');
  const db = new Database(join(world.dir, 'bridge.db'), { readonly: true });
  t.teardown(() => db.close());
  const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  t.equal(count('sources'), 1, 'one row in sources');
  t.equal(count('queue'), 0, 'no queued leftovers');
  t.equal(count('skips'), 0);
});
