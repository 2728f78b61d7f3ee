/** The real Forgejo side (client, gate, statuses, comments, commit times) against a Forgejo simulator that accepts `token`. */
import type { Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { createForgejoSide, type ForgejoSide } from '../../../src/forges/forgejo/forgejo-side.js';
import { parseForgejoUrl, type ForgejoLocation } from '../../../src/forges/forgejo/forgejo-url.js';
import { startForgejoSimulator, type ForgejoSimulator, type ForgejoSimulatorOptions } from '../../harness/forgejo-sim.js';

export async function forgejoSide(
  t: Test,
  token: string,
  options: ForgejoSimulatorOptions = {},
): Promise<{ sim: ForgejoSimulator; side: ForgejoSide }> {
  const sim = await startForgejoSimulator({ tokens: [token], ...options });
  t.teardown(() => sim.close());
  const side = createForgejoSide({
    location: parseForgejoUrl(sim.url) as ForgejoLocation,
    token,
    userAgent: 'test',
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    now: Date.now,
  });
  return { sim, side };
}
