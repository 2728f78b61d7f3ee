/** The status page's clusters section: the bridge's own and each remote cluster, whether it answers and why not. */
import { cell, table } from '../common/html.js';
import type { ClusterView } from './cluster-state.js';

/** One row per cluster; nothing when the bridge reads only its own. */
export function clustersSection(state: { clusters?: readonly ClusterView[] }): string {
  const clusters = state.clusters ?? [];
  if (clusters.length <= 1) return '';
  const answers = (c: ClusterView) => (c.answers === null ? 'not asked yet' : c.answers ? 'answers' : `does not answer: ${c.reason ?? ''}`);
  const rows = clusters.map(
    (c) => `<tr>${cell(c.name)}${cell(c.local ? 'own' : 'remote')}${cell(answers(c))}${cell(c.lastAnswerAt)}${cell(c.credentials)}</tr>`,
  );
  return `<h2>Clusters</h2>\n${table(['cluster', 'kind', 'state', 'last answer', 'credentials'], rows)}`;
}
