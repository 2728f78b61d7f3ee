/**
 * The alerts of manifests/monitoring/prometheusrule.yaml under the real promtool (Debian's
 * `prometheus` package; .ci/run installs it, so a missing promtool fails here): its `spec` is a valid
 * rules file (`promtool check rules`), and `promtool test rules` passes test/monitoring/alert-cases.yaml,
 * where every alert fires on its series and stays quiet otherwise.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse, stringify } from 'yaml';
import { alertRules, prometheusRule, selectorsOf, type AlertRule } from './monitoring-manifests.js';

/** promtool's unit-test file format, as far as these tests go. */
interface AlertCase {
  eval_time: string;
  alertname: string;
  exp_alerts: Array<{ exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }>;
}
interface UnitTests {
  rule_files: string[];
  tests: Array<{ name: string; alert_rule_test?: AlertCase[] }>;
}

const CASES = join(import.meta.dirname, 'alert-cases.yaml');
/** The alerts issue 14 asks for, each by the metric it watches. */
const REQUIRED: Record<string, string> = {
  GdbForgeCredentialsRejected: 'gdb_forge_credentials_ok',
  GdbForgePaused: 'gdb_forge_paused_until_timestamp_seconds',
  GdbFluxObjectFailing: 'gdb_flux_objects_failing_longest_seconds',
  GdbQueueBacklog: 'gdb_queue_oldest_item_age_seconds',
  GdbStorageNotWritable: 'gdb_storage_writable',
  GdbKubernetesUnreachable: 'gdb_kube_last_success_timestamp_seconds',
  GdbWebhookSignatureFailures: 'gdb_events_total{result="bad_signature"}',
  // Issue 24: a write backlog that will take longer than an hour to drain.
  GdbForgeWriteBacklog: 'gdb_forge_write_backlog_drain_seconds',
};
/** Annotations that are the same on every firing of an alert (no template): the cases need not repeat them. */
const FIXED_ANNOTATIONS = ['summary', 'runbook'];

function promtool(args: string[], cwd: string) {
  const r = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (r.error) throw new Error('promtool not found: install the Debian package prometheus (.ci/run does)', { cause: r.error });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A temp dir with rules.yaml (the PrometheusRule's spec) and tests.yaml (the cases, completed). */
function workdir(t: Test, cases: UnitTests): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-promtool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'rules.yaml'), stringify(prometheusRule().spec));
  writeFileSync(join(dir, 'tests.yaml'), stringify(cases));
  return dir;
}

/** The cases with each expected alert's fixed annotations added from its rule. */
function completed(cases: UnitTests, rules: AlertRule[]): UnitTests {
  const byName = new Map(rules.map((r) => [r.alert, r]));
  const copy = structuredClone(cases);
  for (const c of copy.tests.flatMap((x) => x.alert_rule_test ?? [])) {
    const fixed = Object.fromEntries(FIXED_ANNOTATIONS.map((k) => [k, byName.get(c.alertname)?.annotations[k] ?? '']));
    for (const e of c.exp_alerts) e.exp_annotations = { ...fixed, ...e.exp_annotations };
  }
  return copy;
}

const cases = () => parse(readFileSync(CASES, 'utf8')) as UnitTests;

t.test('the PrometheusRule: every alert asked for, each with severity and a runbook', (t) => {
  const rule = prometheusRule();
  t.equal(rule.kind, 'PrometheusRule');
  const rules = alertRules();
  t.same(rules.map((r) => r.alert).sort(), Object.keys(REQUIRED).sort(), 'the alerts, no more');
  for (const r of rules) {
    const watched = REQUIRED[r.alert]!;
    // A selector's own label filter (a scope left out) still watches the metric.
    const selectors = selectorsOf(r.expr);
    t.ok(selectors.includes(watched) || selectors.some((s) => s.startsWith(`${watched}{`)), `${r.alert} watches ${watched}`);
    t.match(r.labels.severity, /^(critical|warning)$/, `${r.alert}: severity`);
    for (const k of ['summary', 'description', 'runbook']) t.ok(r.annotations[k]?.trim(), `${r.alert}: ${k}`);
    t.ok((r.annotations.runbook ?? '').length > 150, `${r.alert}: the runbook says what to do`);
    for (const k of FIXED_ANNOTATIONS) t.notMatch(r.annotations[k] ?? '', /\{\{/, `${r.alert}: ${k} is fixed text`);
  }
  t.end();
});

t.test('one alert per concern: the forge is a label, no alert or expression names one', (t) => {
  const forgeWords = /github|forgejo|gitea|gitlab/i;
  for (const r of alertRules()) {
    t.notMatch(r.alert, forgeWords, `${r.alert}: its name names no forge`);
    t.notMatch(r.expr, forgeWords, `${r.alert}: its expression names no forge`);
    if (r.expr.includes('gdb_forge_')) t.match(r.annotations.description ?? '', /\$labels\.forge/, `${r.alert}: says which forge`);
  }
  t.end();
});

t.test('promtool check rules: the spec is a valid rules file', (t) => {
  const dir = workdir(t, cases());
  const r = promtool(['check', 'rules', 'rules.yaml'], dir);
  t.equal(r.status, 0, r.out);
  t.match(r.out, new RegExp(`SUCCESS: ${alertRules().length} rules found`));
  t.end();
});

t.test('every alert has a case where it fires and one where it stays quiet', (t) => {
  const all = cases().tests.flatMap((x) => x.alert_rule_test ?? []);
  for (const name of Object.keys(REQUIRED)) {
    const mine = all.filter((c) => c.alertname === name);
    t.ok(
      mine.some((c) => c.exp_alerts.length > 0),
      `${name} fires`,
    );
    t.ok(
      mine.some((c) => c.exp_alerts.length === 0),
      `${name} stays quiet`,
    );
  }
  t.end();
});

t.test('promtool test rules: the cases pass', (t) => {
  const dir = workdir(t, completed(cases(), alertRules()));
  const r = promtool(['test', 'rules', 'tests.yaml'], dir);
  t.equal(r.status, 0, r.out);
  t.match(r.out, /SUCCESS/);
  t.end();
});

t.test('the cases can fail: an alert expected quiet where it fires is caught, for each alert', (t) => {
  for (const name of Object.keys(REQUIRED)) {
    const wrong = completed(cases(), alertRules());
    for (const c of wrong.tests.flatMap((x) => x.alert_rule_test ?? [])) if (c.alertname === name) c.exp_alerts = [];
    const r = promtool(['test', 'rules', 'tests.yaml'], workdir(t, wrong));
    t.not(r.status, 0, `${name}: promtool fails`);
    t.match(r.out, new RegExp(`alertname: ${name}`), `${name}: and names it`);
  }
  t.end();
});
