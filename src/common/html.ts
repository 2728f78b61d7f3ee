/** The status page's small pieces: escaping, cells, tables, times and durations as a person reads them. */

/** Every string from a workload, an annotation or the forge passes through here before it reaches the page. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const cell = (text: string | number | null | undefined) => `<td>${escapeHtml(String(text ?? ''))}</td>`;

/** A cell of text from a workload that may hold one long word (an image reference, a path): it wraps anywhere. */
export const longCell = (text: string | number | null | undefined) => `<td class="long">${escapeHtml(String(text ?? ''))}</td>`;

export const table = (head: string[], rows: string[]) =>
  rows.length === 0
    ? '<p class="none">none</p>'
    : `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;

/** What cannot be known yet. */
export const UNKNOWN = '—';

/** Seconds as a person reads them: `45 min`, `3.5 h`, `2.1 d`. */
export function readableSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return UNKNOWN;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} d`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO time as a person reads it, in UTC, with how long ago when `now` is given: `2026-01-01 09:05 UTC (3 min ago)`. */
export function readableTime(iso: string | null | undefined, now?: number): string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const text = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
  if (now === undefined) return text;
  const s = Math.round((now - at.getTime()) / 1000);
  if (s < 0) return `${text} (in ${readableSeconds(-s)})`;
  return `${text} (${s < 60 ? 'just now' : `${readableSeconds(s)} ago`})`;
}

/** A table cell holding a time, readable, with the exact one as its `datetime`. */
export const timeCell = (iso: string | null | undefined, now?: number) =>
  iso ? `<td><time datetime="${escapeHtml(iso)}">${escapeHtml(readableTime(iso, now))}</time></td>` : '<td></td>';
