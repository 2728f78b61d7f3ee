/**
 * The names /metrics exports follow Prometheus' conventions: stock process and Node.js metrics
 * under their usual names (the common Node.js dashboards find them), `_total` only on counters,
 * timestamps in `_timestamp_seconds`, and a `gdb_build_info` naming the build.
 */
import t from 'tap';
import { createMetrics } from '../../src/common/metrics.js';

/** `# TYPE name type` lines of an exposition, as name → type. */
async function types(build?: Parameters<typeof createMetrics>[0]): Promise<Map<string, string>> {
  const text = await createMetrics(build).registry.metrics();
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

t.test('stock process and Node.js metrics keep their names; the bridge’s own start with gdb_', async (t) => {
  const all = await types();
  for (const stock of [
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'process_start_time_seconds',
    'nodejs_heap_size_used_bytes',
  ])
    t.ok(all.has(stock), stock);
  const names = [...all.keys()];
  t.same(
    names.filter((n) => n.startsWith('gdb_process_')),
    [],
    'no prefixed copies',
  );
  t.same(
    names.filter((n) => !/^(gdb|process|nodejs)_[a-z0-9_]+$/.test(n)),
    [],
    'every name is gdb_, process_ or nodejs_',
  );
});

t.test('_total ends counters and only counters', async (t) => {
  const all = await types();
  const wrong = [...all]
    .filter(([name, type]) => name.endsWith('_total') !== (type === 'counter'))
    .map(([name, type]) => `${name} (${type})`);
  t.same(wrong, []);
  t.ok(all.has('nodejs_active_handles'), 'the per-type gauge whose sum the dropped `_total` gauge was stays');
});

t.test('points in time are _timestamp_seconds gauges', async (t) => {
  const all = await types();
  t.equal(all.get('gdb_forge_paused_until_timestamp_seconds'), 'gauge');
  t.equal(all.get('gdb_kube_last_success_timestamp_seconds'), 'gauge');
  t.notOk(all.has('gdb_github_paused_until_seconds'), 'the old name is gone');
});

t.test('one metric per concern, the forge a label: no name names a forge', async (t) => {
  const names = [...(await types()).keys()];
  t.same(
    names.filter((n) => /^gdb_(github|forgejo|gitea|gitlab)_/.test(n)),
    [],
    'no per-forge names',
  );
  const metrics = createMetrics();
  for (const name of [
    'gdb_forge_requests_total',
    'gdb_forge_pauses_total',
    'gdb_forge_paused_until_timestamp_seconds',
    'gdb_forge_rate_limit_remaining',
    'gdb_forge_credentials_ok',
    'gdb_forge_refusals',
    'gdb_statuses_sent_total',
    'gdb_deployments',
  ]) {
    const metric = metrics.registry.getSingleMetric(name) as unknown as { labelNames: string[] } | undefined;
    t.ok(metric?.labelNames.includes('forge'), `${name} carries a forge label`);
  }
});

t.test('gdb_build_info names version, commit and Node.js', async (t) => {
  const text = await createMetrics({ version: '1.2.3', commit: 'abc123' }).registry.metrics();
  t.match(
    text,
    new RegExp(`^gdb_build_info\\{version="1\\.2\\.3",commit="abc123",node="${process.version.replace(/\./g, '\\.')}"\\} 1$`, 'm'),
  );
  t.match(
    await createMetrics().registry.metrics(),
    /^gdb_build_info\{version="\d+\.\d+\.\d+[^"]*",commit="unknown",node="v\d+[^"]*"\} 1$/m,
  );
});
