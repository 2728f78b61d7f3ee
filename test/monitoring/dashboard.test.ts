/**
 * manifests/monitoring as a user installs it: the Grafana dashboard is valid dashboard JSON covering
 * what issue 14 asks to see, every metric it and the alerts name is one the bridge exports, and the
 * component renders (kubectl kustomize) into a ServiceMonitor that finds the bridge's Service, the
 * PrometheusRule and the dashboard's ConfigMap labelled for Grafana's sidecar.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { createMetrics } from '../../src/common/metrics.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { alertRules, dashboard, dashboardQueries, dashboardText, selectorsOf } from './monitoring-manifests.js';

const GRID_COLUMNS = 24;
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
/** What the dashboard must show (issue 14), each by a metric one of its queries reads. */
const TOPICS: Record<string, string> = {
  'deployments by state and forge': 'gdb_deployments',
  'time from Flux event to status': 'gdb_event_to_status_seconds_bucket',
  'forge budgets': 'gdb_forge_rate_limit_remaining',
  'forge pauses': 'gdb_forge_paused_until_timestamp_seconds',
  'forge credentials': 'gdb_forge_credentials_ok',
  'refusals by reason': 'gdb_forge_refusals',
  'skips by reason': 'gdb_skipped_workloads',
  'queue depth': 'gdb_queue_depth',
  'oldest item age': 'gdb_queue_oldest_item_age_seconds',
  'reconcile outcomes': 'gdb_reconciles_total',
  'registry cache hits': 'gdb_registry_cache_lookups_total',
  'webhook answers by code': 'gdb_webhook_responses_total',
  'storage health': 'gdb_storage_writable',
  memory: 'process_resident_memory_bytes',
  'DORA deployment frequency (issue 26)': 'gdb_dora_deployments_per_day',
  'DORA change failure rate (issue 26)': 'gdb_dora_change_failure_ratio',
  'DORA lead time for changes (issue 26)': 'gdb_dora_lead_time_seconds_bucket',
  'DORA time to restore (issue 26)': 'gdb_dora_time_to_restore_seconds_bucket',
};

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
};

const metricName = (selector: string) => selector.replace(/\{.*$/, '');

t.test('the dashboard: Grafana JSON with a datasource variable, 12 to 21 panels on the grid', (t) => {
  const d = dashboard();
  t.ok(d.schemaVersion >= 36, `schemaVersion ${d.schemaVersion}`);
  t.equal(d.uid, 'github-deployment-bridge');
  t.match(d.templating.list, [{ name: 'datasource', type: 'datasource', query: 'prometheus' }]);
  t.ok(d.panels.length >= 12 && d.panels.length <= 21, `${d.panels.length} panels`);
  t.equal(new Set(d.panels.map((p) => p.id)).size, d.panels.length, 'panel ids are unique');
  const cells = new Map<string, string>();
  for (const p of d.panels) {
    const { x, y, w, h } = p.gridPos;
    t.ok(w > 0 && h > 0 && x >= 0 && x + w <= GRID_COLUMNS, `${p.title}: inside the grid`);
    for (let row = y; row < y + h; row++)
      for (let col = x; col < x + w; col++) {
        const other = cells.get(`${row},${col}`);
        if (other) t.fail(`${p.title} overlaps ${other}`);
        cells.set(`${row},${col}`, p.title);
      }
    // A row is a heading: no queries of its own.
    if (p.type === 'row') continue;
    const targets = p.targets ?? [];
    t.ok(p.description?.trim(), `${p.title}: says what it shows`);
    t.same(p.datasource, DATASOURCE, `${p.title}: the datasource variable`);
    t.ok(targets.length > 0, `${p.title}: has queries`);
    t.equal(new Set(targets.map((q) => q.refId)).size, targets.length, `${p.title}: refIds unique`);
    for (const q of targets) t.same(q.datasource, DATASOURCE, `${p.title} / ${q.refId}: the datasource variable`);
  }
  t.end();
});

t.test('the DORA figures are one row of their own: a row heading, and every DORA panel below it (issue 26)', (t) => {
  const d = dashboard();
  const rows = d.panels.filter((p) => p.type === 'row');
  const row = rows.find((p) => /DORA/.test(p.title));
  t.ok(row, 'a DORA row');
  const dora = d.panels.filter((p) => (p.targets ?? []).some((q) => /gdb_dora_/.test(q.expr)));
  t.equal(dora.length, 4, 'deployment frequency, lead time, change failure rate, time to restore');
  const below = rows.filter((r) => r !== row && r.gridPos.y > (row?.gridPos.y ?? 0)).map((r) => r.gridPos.y);
  const end = Math.min(Infinity, ...below);
  for (const p of dora) t.ok(p.gridPos.y > (row?.gridPos.y ?? Infinity) && p.gridPos.y < end, `${p.title}: in the DORA row`);
  t.end();
});

t.test('the dashboard shows what issue 14 asks for', (t) => {
  const read = new Set(dashboardQueries().flatMap((q) => selectorsOf(q.expr).map(metricName)));
  for (const [topic, metric] of Object.entries(TOPICS)) t.ok(read.has(metric), `${topic}: ${metric}`);
  t.end();
});

t.test('the dashboard shows forges by label: no query or legend names a forge, every forge query splits by it', (t) => {
  for (const q of dashboardQueries()) {
    t.notMatch(`${q.expr} ${q.legendFormat ?? ''}`, /github|forgejo|gitea|gitlab/i, `${q.expr}: names no forge`);
    if (/gdb_forge_/.test(q.expr)) t.match(q.legendFormat ?? '', /\{\{forge\}\}/, `${q.expr}: its legend names the forge`);
  }
  t.end();
});

t.test('every metric the dashboard and the alerts read is one the bridge exports', async (t) => {
  const text = await createMetrics().registry.metrics();
  const exported = new Set(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
      type === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => `${name}${s}`) : [name!],
    ),
  );
  const exprs = [...dashboardQueries().map((q) => q.expr), ...alertRules().map((r) => r.expr)];
  const named = new Set(exprs.flatMap((e) => selectorsOf(e).map(metricName)));
  t.ok(named.size > 15, `${named.size} metrics named`);
  for (const m of named) t.ok(exported.has(m), m);
  t.notOk(exported.has('gdb_github_paused_until_seconds'), 'the check can fail: an old name is not exported');
});

t.test('the component renders: ServiceMonitor for the Service, PrometheusRule, dashboard ConfigMap for Grafana', (t) => {
  const out = execFileSync('kubectl', ['kustomize', join(REPO_ROOT, 'test', 'monitoring', 'install')], { encoding: 'utf8' });
  const objs = parseAllDocuments(out).map((d) => d.toJS() as Obj);
  const find = (kind: string) => objs.find((o) => o.kind === kind);
  const service = find('Service') as Obj & { spec: { selector: Record<string, string>; ports: Array<{ name: string }> } };
  t.ok(find('Deployment'), 'the base is still there');

  const monitor = find('ServiceMonitor') as Obj & {
    spec: { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string; path: string }> };
  };
  t.equal(monitor.apiVersion, 'monitoring.coreos.com/v1');
  t.equal(monitor.metadata.namespace, 'flux-system', "in the bridge's namespace");
  t.match(service.metadata.labels, monitor.spec.selector.matchLabels, "selects the bridge's Service");
  t.same(
    monitor.spec.endpoints.map((e) => `${e.port} ${e.path}`),
    [`${service.spec.ports[0]!.name} /metrics`],
    "scrapes /metrics on the Service's port",
  );

  const rule = find('PrometheusRule') as Obj & { spec: { groups: unknown[] } };
  t.equal(rule.metadata.namespace, 'flux-system');
  t.equal(rule.spec.groups.length, 1);

  const dashboards = objs.filter((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1') as Array<
    Obj & { data: Record<string, string> }
  >;
  t.equal(dashboards.length, 1, 'one ConfigMap labelled grafana_dashboard');
  t.equal(dashboards[0]!.metadata.name, 'github-deployment-bridge-dashboard', 'a stable name (no hash suffix)');
  t.same(Object.keys(dashboards[0]!.data), ['github-deployment-bridge.json']);
  t.equal(dashboards[0]!.data['github-deployment-bridge.json'], dashboardText(), 'the dashboard file as it is');
  t.end();
});
