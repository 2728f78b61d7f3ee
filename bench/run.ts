/**
 * Runs benchmarks by name, one after another, each in its own node process:
 *   npm run bench -- intake latency      (default: all, in the order below)
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ALL = [
  'wildcard',
  'intake',
  'write-economy',
  'forgejo-economy',
  'gitlab-economy',
  'rollout',
  'base-image-bump',
  'latency',
  'rollout-latency',
  'fleet',
  'resync-cost',
  'memory',
  'dora-scrape',
  'commit-time-reads',
  'runtime-soundness',
];
const here = dirname(fileURLToPath(import.meta.url));
const asked = process.argv.slice(2);
const unknown = asked.filter((n) => !ALL.includes(n));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${ALL.join(', ')}\n`);
  process.exit(2);
}
let failed = 0;
for (const name of asked.length > 0 ? asked : ALL) {
  process.stdout.write(`== ${name}\n`);
  const r = spawnSync(process.execPath, [join(here, `${name}.js`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
