import { oneLine } from '../common/text.js';
import type { DoraFigures } from '../features/dora/dora.js';

/** What cannot be known (no commit time, no history for the window) prints as this, never as 0. */
export const UNKNOWN = '—';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A duration as a person reads it: `45m`, `3.5h`, `2.1d`; absent as UNKNOWN. */
export function humanDuration(ms: number | undefined): string {
  if (ms === undefined) return UNKNOWN;
  if (ms < HOUR_MS) return `${Math.round(ms / MINUTE_MS)}m`;
  if (ms < DAY_MS) return `${(ms / HOUR_MS).toFixed(1)}h`;
  return `${(ms / DAY_MS).toFixed(1)}d`;
}

const fixed = (n: number | undefined, digits: number) => (n === undefined ? UNKNOWN : n.toFixed(digits));
const percent = (n: number | undefined) => (n === undefined ? UNKNOWN : `${(n * 100).toFixed(0)}%`);

/** The least history (from the database's first record, or the window's start) a rate is computed over; less prints the count. */
export const MIN_RATE_HISTORY_MS = DAY_MS;

/** Under the table: what the numbers in parentheses are, and what `— (0)` means. */
export const LEGEND =
  '(n): how many the figure is made of (lead times with a known commit time, failed/finished deployments, restored failures); ' +
  '— (0): nothing to measure yet, not zero';

const pad2 = (n: number) => String(n).padStart(2, '0');
const utc = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())} UTC`;
};

/** When the figures' history starts (the later of the window's start and the database's first record), and the window's end. */
export interface History {
  start: number;
  now: number;
}

const HEADER = ['forge', 'environment', 'per day', 'per week', 'lead time (median)', 'change failure', 'time to restore (median)'];

/** The `dora` table: one line per environment, aligned columns, names from workloads on one line and bounded. Pure. */
export function doraTable(repository: string, windowDays: number, figures: readonly DoraFigures[], history?: History): string[] {
  const title = `${oneLine(repository, 200)}: the last ${windowDays} days`;
  if (figures.length === 0) return [title, 'no deployments recorded in a counted environment (production, or --environments)'];
  // A few deployments over minutes are no rate ("3530.78 per day"): under a day of history the count is said instead.
  const tooShort = history !== undefined && history.now - history.start < MIN_RATE_HISTORY_MS;
  const rows = figures.map((f) => [
    f.forge,
    oneLine(f.environment, 60),
    tooShort ? 'too short' : fixed(f.perDay, 2),
    tooShort ? UNKNOWN : fixed(f.perWeek, 1),
    `${humanDuration(f.leadTimeMedianMs)} (${f.leadTimesMs.length}${f.skewClamped ? `, ${f.skewClamped} clamped` : ''})`,
    `${percent(f.changeFailureRate)} (${f.failedChanges}/${f.deployments})`,
    `${humanDuration(f.restoreMedianMs)} (${f.restoreTimesMs.length}${f.unrestored ? `, ${f.unrestored} not yet` : ''})`,
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const notes = tooShort
    ? figures.map(
        (f) =>
          `${oneLine(f.environment, 60)}: ${f.deployments} deployment${f.deployments === 1 ? '' : 's'} since ${utc(history.start)}, too short for a rate (a rate needs a day of history)`,
      )
    : [];
  return [title, line(HEADER), ...rows.map(line), ...notes, LEGEND];
}
