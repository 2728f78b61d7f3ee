/** The read-only status page (`GET /`): /state's snapshot as server-rendered HTML, no script, no framework. */
import type { StateSnapshot } from './state-snapshot.js';
import { cell, commentsSection, escapeHtml, table, writeBudgetSection } from './status-page-sections.js';
import { clustersSection } from './status-page-clusters.js';

export { escapeHtml };

type Row = StateSnapshot['deployments'][number];

/** What a person reads for a row's (neutral) state: live, rolling out, failed, gone. */
export function phaseOf(state: string): 'live' | 'rolling out' | 'failed' | 'gone' {
  if (state === 'success') return 'live';
  if (state === 'failure' || state === 'error') return 'failed';
  if (state === 'gone') return 'gone';
  return 'rolling out';
}

/** The forge's names as people read them (`github` → `GitHub`), from each forge's title. */
export type ForgeTitles = Readonly<Record<string, string>>;

function deploymentRow(d: Row): string {
  const phase = phaseOf(d.state);
  // The forge's page for the row (each forge knows its own: a deployments page, a commit's checks).
  const href = d.url;
  const repo = escapeHtml(`${d.owner}/${d.repo}`);
  return (
    `<tr class="${phase.replace(' ', '-')}">` +
    `<td>${href ? `<a href="${escapeHtml(href)}">${repo}</a>` : repo}</td>` +
    `<td><code>${escapeHtml(d.sha.slice(0, 7))}</code></td>` +
    `<td><span class="phase">${phase}</span> ${escapeHtml(d.forgeState)}</td>` +
    cell(d.workload) +
    cell(d.image) +
    cell(d.description) +
    cell(d.updatedAt) +
    '</tr>'
  );
}

/** Per forge, then environment, in the order /state lists them. */
function groups(rows: Row[], titles: ForgeTitles): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const d of rows) {
    const key = `${titles[d.forge] ?? d.forge} · ${d.environment}`;
    out.set(key, [...(out.get(key) ?? []), d]);
  }
  return out;
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:1.5em;color:#1f2328}table{border-collapse:collapse;margin:.5em 0 1.5em}' +
  'th,td{border:1px solid #d0d7de;padding:.3em .6em;text-align:left;vertical-align:top}th{background:#f6f8fa}' +
  '.phase{font-weight:600}.live .phase{color:#1a7f37}.rolling-out .phase{color:#9a6700}.failed .phase{color:#cf222e}' +
  '.gone .phase{color:#656d76}.none{color:#656d76}';

/** Pure: the whole page for one snapshot. */
export function renderStatusPage(state: StateSnapshot, titles: ForgeTitles): string {
  const sections = [...groups(state.deployments, titles)].map(
    ([title, rows]) =>
      `<h3>${escapeHtml(title)}</h3>` +
      table(['repository', 'commit', 'state', 'workload', 'image', 'description', 'updated'], rows.map(deploymentRow)),
  );
  const skips = state.skipped.map(
    (s) => `<tr>${cell(s.fluxObject)}${cell(s.workload)}${cell(s.container)}${cell(s.reason)}${cell(s.since)}</tr>`,
  );
  const backlog = state.queue.items.map(
    (q) => `<tr>${cell(`${q.kind}/${q.namespace}/${q.name}`)}${cell(q.state)}${cell(q.attempts)}${cell(q.notBefore)}</tr>`,
  );
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>github-deployment-bridge</title>',
    `<style>${STYLE}</style></head><body>`,
    `<h1>github-deployment-bridge</h1>`,
    `<p id="readiness">${state.readiness.ready ? 'ready' : `not ready: ${escapeHtml(state.readiness.reasons.join('; '))}`}${state.dryRun ? ' · dry run: nothing is written to the forges' : ''}</p>`,
    `<h2>Deployments</h2>`,
    sections.length ? sections.join('') : '<p class="none">none</p>',
    `<h2>Skipped</h2>`,
    table(['Flux object', 'workload', 'container', 'reason', 'since'], skips),
    `<h2>Queue</h2>`,
    `<p id="queue">${state.queue.pending} pending, ${state.queue.active} active, ${state.queue.running} running</p>`,
    table(['Flux object', 'state', 'attempts', 'not before'], backlog),
    writeBudgetSection(state, titles),
    commentsSection(state, titles),
    clustersSection(state),
    '</body></html>',
  ].join('\n');
}
