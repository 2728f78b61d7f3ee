/**
 * The pull request comment: a hidden marker naming the bridge's cluster (so several clusters keep one
 * comment each), then one table row per reported workload of the pull request. Pure: the same rows render
 * the same text, so an unchanged table is never written again.
 */
import type { DeliveryState } from '../../lifecycle/status-plan.js';
import { byText } from '../../common/text.js';
import { markdownLink, markdownText } from './comment-text.js';

/** One reported workload of a pull request, as its row shows it. */
export interface CommentRow {
  deploymentName: string;
  environment: string;
  state: DeliveryState;
  /** The preview URL: linked only while live. */
  url?: string | undefined;
  sha: string;
  version?: string | undefined;
  digest?: string | undefined;
  /** When the row last changed, epoch milliseconds. */
  updatedAt: number;
}

/** How a row's state reads. */
export type RowWord = 'rolling out' | 'live' | 'failed' | 'gone';

export function rowWord(state: DeliveryState): RowWord {
  switch (state) {
    case 'success':
      return 'live';
    case 'failure':
    case 'error':
      return 'failed';
    case 'gone':
      return 'gone';
    default:
      return 'rolling out';
  }
}

/** Rows shown at most; the rest are counted below the table. */
export const MAX_ROWS = 50;
/** Longest name, environment or version shown, in characters. */
const CELL_CHARS = 80;

const MARKER_PREFIX = '<!-- github-deployment-bridge:cluster=';

/** The hidden first line that names the bridge's cluster: its comment, among every other comment of the pull request. */
export function commentMarker(cluster: string): string {
  // encodeURIComponent leaves no `>`, so no cluster name can end the HTML comment early.
  return `${MARKER_PREFIX}${encodeURIComponent(cluster)} -->`;
}

/** Whether a comment's body is this cluster's comment (it begins with the cluster's marker line). */
export function isOwnComment(body: string, cluster: string): boolean {
  return body.split('\n', 1)[0]?.trim() === commentMarker(cluster);
}

const DIGEST = /^(sha256|sha512):([0-9a-f]{12})[0-9a-f]*$/;

/** The image cell: its version (escaped) and the digest's first 12 hex digits, when known. */
function imageCell(r: CommentRow): string {
  const parts: string[] = [];
  if (r.version !== undefined && r.version !== '') parts.push(markdownText(r.version, CELL_CHARS));
  const d = r.digest === undefined ? null : DIGEST.exec(r.digest);
  if (d !== null) parts.push(`\`${d[1]}:${d[2]}\``);
  return parts.length > 0 ? parts.join(' ') : '–';
}

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const shortSha = (sha: string) => (/^[0-9a-f]{7,40}$/i.test(sha) ? `\`${sha.slice(0, 7)}\`` : markdownText(sha, 12));

function rowLine(r: CommentRow): string {
  const word = rowWord(r.state);
  const link = word === 'live' && r.url !== undefined ? markdownLink(r.url) : undefined;
  const cells = [
    markdownText(r.deploymentName, CELL_CHARS),
    markdownText(r.environment, CELL_CHARS),
    word,
    link ?? '–',
    shortSha(r.sha),
    imageCell(r),
    when(r.updatedAt),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** Rows in a stable order: by environment, then deployment name. */
const order = (a: CommentRow, b: CommentRow) => byText(a.environment, b.environment) || byText(a.deploymentName, b.deploymentName);

/** Longest comment, in UTF-16 code units, when the forge says none (GitHub's 65,536 characters). */
export const DEFAULT_MAX_COMMENT_CHARS = 65_536;
/** Kept free below the limit for the last line (`…and N more workloads, not shown.`). */
const FOOTER_CHARS = 100;

/**
 * The comment's text for the bridge's cluster and the pull request's rows: at most MAX_ROWS rows, and never more
 * than `maxChars` in all (the forge's limit on a comment); the rows left out are counted on the last line.
 */
export function renderComment(cluster: string, rows: readonly CommentRow[], maxChars = DEFAULT_MAX_COMMENT_CHARS): string {
  const sorted = [...rows].sort(order);
  const allGone = rows.length > 0 && rows.every((r) => r.state === 'gone');
  const lines = [
    commentMarker(cluster),
    `### Preview deployments, cluster ${markdownText(cluster, CELL_CHARS)}`,
    '',
    allGone ? 'The preview is gone: its workloads were removed.' : 'Kept current by github-deployment-bridge as the workloads change.',
    '',
    '| Deployment | Environment | State | Preview | Commit | Image | Updated |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  // Each line costs its length and a newline; the room left keeps the last line's place.
  let used = lines.reduce((n, l) => n + l.length + 1, 0) + FOOTER_CHARS;
  let shown = 0;
  for (const r of sorted.slice(0, MAX_ROWS)) {
    const line = rowLine(r);
    if (used + line.length + 1 > maxChars) break;
    lines.push(line);
    used += line.length + 1;
    shown += 1;
  }
  if (sorted.length > shown) lines.push('', `…and ${sorted.length - shown} more workloads, not shown.`);
  return `${lines.join('\n')}\n`;
}
