/** What the monitoring tests read from manifests/monitoring/: the dashboard's queries and the alert rules. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../fixtures/locate.js';

export const MONITORING_DIR = join(REPO_ROOT, 'manifests', 'monitoring');

/** The parts of a Grafana dashboard the tests look at. */
export interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  templating: { list: Array<{ name: string; type: string; query?: string }> };
  panels: Array<{
    id: number;
    type: string;
    title: string;
    description?: string;
    datasource: { type: string; uid: string };
    gridPos: { h: number; w: number; x: number; y: number };
    /** Absent on a row (a heading). */
    targets?: Array<{ refId: string; expr: string; legendFormat?: string; datasource: { type: string; uid: string } }>;
  }>;
}

/** One alerting rule of the PrometheusRule. */
export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** The PrometheusRule's `spec`: a Prometheus rules file as it is. */
export interface RuleSpec {
  groups: Array<{ name: string; rules: AlertRule[] }>;
}

export const dashboardText = () => readFileSync(join(MONITORING_DIR, 'dashboard.json'), 'utf8');
export const dashboard = () => JSON.parse(dashboardText()) as Dashboard;

/** The PrometheusRule manifest, parsed. */
export const prometheusRule = () =>
  parse(readFileSync(join(MONITORING_DIR, 'prometheusrule.yaml'), 'utf8')) as { kind: string; metadata: { name: string }; spec: RuleSpec };

export const alertRules = () => prometheusRule().spec.groups.flatMap((g) => g.rules);

/** Every query of the dashboard, named `panel title / refId`. */
export const dashboardQueries = () =>
  dashboard().panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ name: `${p.title} / ${t.refId}`, expr: t.expr, legendFormat: t.legendFormat })),
  );

/**
 * A Grafana query as Prometheus gets it: Grafana's range variables replaced by concrete ranges
 * (`$__rate_interval`: four scrape intervals at least; the test scrapes every second).
 */
export function asPromQL(expr: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '15s').replaceAll('$__range', '5m');
}

/**
 * The series selectors of an expression (metric name with its label matchers, without a range): what
 * must exist for the expression to mean anything, even when it is quiet by design (an alert's threshold).
 * The bridge's metrics all start with gdb_, process_ or nodejs_.
 */
export function selectorsOf(expr: string): string[] {
  return [...new Set([...expr.matchAll(/\b(?:gdb|process|nodejs)_[a-z0-9_]+(?:\{[^}]*\})?/g)].map((m) => m[0]))];
}
