/**
 * The top of the status page: one line with what an operator looks for first (ready or not, the cluster, the
 * version, each forge's credentials), then what is wrong (not ready, degraded).
 */
import type { StateSnapshot } from './state-snapshot.js';
import { escapeHtml } from '../common/html.js';

/** The forge's names as people read them (`github` → `GitHub`), from each forge's title. */
export type ForgeTitles = Readonly<Record<string, string>>;

/** A forge's credential state (forge-health.ts `CredentialState`) as a person reads it. */
const CREDENTIAL_WORDS: Readonly<Record<string, string>> = {
  ok: 'credentials accepted',
  rejected: 'credentials rejected',
  unchecked: 'credentials not checked yet',
  unreachable: 'credentials not checked: forge unreachable',
};

function credentialsOf(state: StateSnapshot, forge: string): string {
  const section = (state as Record<string, unknown>)[forge] as { credentials?: { state?: unknown } } | undefined;
  const word = section?.credentials?.state;
  return typeof word === 'string' ? (CREDENTIAL_WORDS[word] ?? word) : 'credentials unknown';
}

/** Ready, degraded (ready, but a dependency fails: reports may be late or missing) or not ready. */
export function overallOf(state: Pick<StateSnapshot, 'readiness'>): 'ready' | 'degraded' | 'not ready' {
  if (!state.readiness.ready) return 'not ready';
  return (state.readiness.degraded ?? []).length > 0 ? 'degraded' : 'ready';
}

/** The header line: overall state, cluster, version, each forge's credentials, dry run. */
export function headerLine(state: StateSnapshot, titles: ForgeTitles): string {
  const overall = overallOf(state);
  const parts = [`<b class="overall ${overall.replace(' ', '-')}">${overall}</b>`];
  if (state.bridge) {
    parts.push(`cluster <b>${escapeHtml(state.bridge.cluster)}</b>`, `version ${escapeHtml(state.bridge.version)}`);
  }
  for (const [name, title] of Object.entries(titles)) parts.push(`${escapeHtml(title)}: ${escapeHtml(credentialsOf(state, name))}`);
  if (state.dryRun) parts.push('dry run: nothing is written to the forges');
  return `<p id="summary">${parts.join(' · ')}</p>`;
}

/** What is wrong now: why not ready, what is degraded; nothing when all is well. */
export function problemsBlock(state: StateSnapshot): string {
  const list = (items: readonly string[]) => `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
  const parts: string[] = [];
  if (state.readiness.reasons.length > 0) parts.push(`<h2>Not ready</h2>${list(state.readiness.reasons)}`);
  const degraded = state.readiness.degraded ?? [];
  if (degraded.length > 0) {
    parts.push(
      `<h2>Degraded</h2><p>Events are still taken and queued; reports may be late or missing until this clears.</p>${list(degraded)}`,
    );
  }
  return parts.length === 0 ? '' : `<div id="problems">${parts.join('')}</div>`;
}
