/** The read-only status page (`GET /`): /state's snapshot as server-rendered HTML, no script, no framework. */
import { SUPERSEDED_PREFIX } from '../lifecycle/status-plan.js';
import type { StateSnapshot } from './state-snapshot.js';
import type { PageSection, SectionPlace } from '../features/feature.js';
import { headerLine, problemsBlock, type ForgeTitles } from './status-page-header.js';
import { cell, escapeHtml, longCell, table, timeCell } from '../common/html.js';
import { writeBudgetSection, type ForgeWriteBudget } from './status-page-sections.js';
import { clustersSection } from './status-page-clusters.js';
import type { ClusterView } from './cluster-state.js';

export { escapeHtml, type ForgeTitles, type ForgeWriteBudget };

type Row = StateSnapshot['deployments'][number];

/** What a person reads for a row: live, rolling out, failed (now), or superseded, gone (history). */
export type Phase = 'live' | 'rolling out' | 'failed' | 'superseded' | 'gone';

/** A row's phase from its neutral state; an ended row whose description says a newer commit replaced it is superseded. */
export function phaseOf(state: string, description?: string | null): Phase {
  if (state === 'success') return 'live';
  if (state === 'failure' || state === 'error') return 'failed';
  if (state === 'gone') return description?.startsWith(SUPERSEDED_PREFIX) ? 'superseded' : 'gone';
  return 'rolling out';
}

const isHistory = (p: Phase) => p === 'superseded' || p === 'gone';

function deploymentRow(d: Row, now: number | undefined): string {
  const phase = phaseOf(d.state, d.description);
  // The forge's page for the row (each forge knows its own: a deployments page, a commit's checks).
  const href = d.url;
  const repo = escapeHtml(`${d.owner}/${d.repo}`);
  // The forge's own word after the phase, unless it says the same (`gone gone`).
  const word = d.forgeState.toLowerCase() === phase ? '' : ` <span class="word">${escapeHtml(d.forgeState)}</span>`;
  return (
    `<tr class="${phase.replace(' ', '-')}">` +
    `<td class="long">${href ? `<a href="${escapeHtml(href)}">${repo}</a>` : repo}</td>` +
    `<td><code>${escapeHtml(d.sha.slice(0, 7))}</code></td>` +
    `<td><span class="phase">${phase}</span>${word}</td>` +
    longCell(d.workload) +
    longCell(d.image) +
    `<td class="long text">${escapeHtml(d.description ?? '')}</td>` +
    timeCell(d.updatedAt, now) +
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

const DEPLOYMENT_HEAD = ['repository', 'commit', 'state', 'workload', 'image', 'description', 'updated'];

function deploymentTables(rows: Row[], titles: ForgeTitles, now: number | undefined, empty: string): string {
  const sections = [...groups(rows, titles)].map(
    ([title, group]) =>
      `<h3>${escapeHtml(title)}</h3>` +
      table(
        DEPLOYMENT_HEAD,
        group.map((d) => deploymentRow(d, now)),
      ),
  );
  return sections.length ? sections.join('') : `<p class="none">${empty}</p>`;
}

/** Live deployments first (live, rolling out, failed), then the history (superseded, gone). */
function deploymentsSection(state: StateSnapshot, titles: ForgeTitles, now: number | undefined): string {
  const current = state.deployments.filter((d) => !isHistory(phaseOf(d.state, d.description)));
  const history = state.deployments.filter((d) => isHistory(phaseOf(d.state, d.description)));
  const degraded = (state.readiness.degraded ?? []).length > 0 || !state.readiness.ready;
  const none = degraded ? 'none known: the bridge is not healthy (above), so this may be incomplete' : 'none';
  return (
    `<h2>Deployments now</h2>\n${deploymentTables(current, titles, now, none)}\n` +
    `<h2>History</h2>\n${deploymentTables(history, titles, now, 'none')}`
  );
}

function skippedSection(state: StateSnapshot, now: number | undefined): string {
  const skips = state.skipped.map(
    (s) =>
      `<tr>${longCell(s.fluxObject)}${longCell(s.workload)}${cell(s.container)}<td class="long text">${escapeHtml(s.reason)}</td>${timeCell(s.since, now)}</tr>`,
  );
  return `<h2>Skipped</h2>\n${table(['Flux object', 'workload', 'container', 'reason', 'since'], skips)}`;
}

function queueSection(state: StateSnapshot, now: number | undefined): string {
  const backlog = state.queue.items.map(
    (q) => `<tr>${longCell(`${q.kind}/${q.namespace}/${q.name}`)}${cell(q.state)}${cell(q.attempts)}${timeCell(q.notBefore, now)}</tr>`,
  );
  return (
    `<h2>Queue</h2>\n<p id="queue">${state.queue.pending} pending, ${state.queue.active} active, ${state.queue.running} running</p>` +
    table(['Flux object', 'state', 'attempts', 'not before'], backlog)
  );
}

/** A section of the page: empty text leaves it out. Add one here to show more of /state; a feature brings its own. */
type Section = (state: StateSnapshot, titles: ForgeTitles, now: number | undefined, budgets: readonly ForgeWriteBudget[]) => string;

/** The page's own sections, each feature's at its place (`deployments`: after the deployments; `queue`: at the end). */
const sectionsWith = (pages: readonly PageSection[]): readonly Section[] => {
  const at = (place: SectionPlace): Section[] => pages.filter((p) => p.place === place).map((p) => (s, t, now) => p.render(s, t, now));
  return [
    (s, t) => headerLine(s, t),
    (s) => problemsBlock(s),
    (s) => clustersSection(s as { clusters?: readonly ClusterView[] }),
    deploymentsSection,
    ...at('deployments'),
    (s, _t, now) => skippedSection(s, now),
    (s, _t, now) => queueSection(s, now),
    (_s, _t, _now, budgets) => writeBudgetSection(budgets),
    ...at('queue'),
    ...at('readiness'),
  ];
};

// Long words (a `main@sha1:<40 hex>` revision, an image reference) wrap anywhere, so no table is wider than the window.
const STYLE =
  'body{font:14px system-ui,sans-serif;margin:1.5em;color:#1f2328}p,li,h3{overflow-wrap:anywhere}' +
  'table{border-collapse:collapse;margin:.5em 0 1.5em;max-width:100%}' +
  'th,td{border:1px solid #d0d7de;padding:.3em .6em;text-align:left;vertical-align:top;overflow-wrap:break-word}' +
  'th{background:#f6f8fa;white-space:nowrap}td.long{overflow-wrap:anywhere}td.text{min-width:14em}' +
  'time,code,.phase{white-space:nowrap}' +
  '.phase{font-weight:600}.live .phase{color:#1a7f37}.rolling-out .phase{color:#9a6700}.failed .phase{color:#cf222e}' +
  '.superseded .phase,.gone .phase,.word{color:#656d76}.none{color:#656d76}' +
  '.overall.ready{color:#1a7f37}.overall.degraded{color:#9a6700}.overall.not-ready{color:#cf222e}' +
  '#problems{border-left:4px solid #d4a72c;padding:0 1em;background:#fff8c5}';

/**
 * Pure: the whole page for one snapshot; `now` (ms) adds how long ago each time was; `pages`: the features' sections;
 * `budgets`: each forge's write budget.
 */
export function renderStatusPage(
  state: StateSnapshot,
  titles: ForgeTitles,
  now?: number,
  pages: readonly PageSection[] = [],
  budgets: readonly ForgeWriteBudget[] = [],
): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>github-deployment-bridge</title><style>${STYLE}</style></head><body>`,
    `<h1>github-deployment-bridge</h1>`,
    ...sectionsWith(pages)
      .map((section) => section(state, titles, now, budgets))
      .filter((html) => html !== ''),
    '</body></html>',
  ].join('\n');
}
