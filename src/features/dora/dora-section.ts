/** The DORA figures' part of `/state` (`dora`) and of the status page. */
import { cell, readableSeconds, table, UNKNOWN } from '../../common/html.js';
import type { Titles } from '../feature.js';
import type { DoraCache } from './dora-cache.js';

/** `/state`'s `dora`: the four keys of the last 30 days per repository and environment (the `dora` command's figures), their age, the commit times. */
export function doraState(dora: Pick<DoraCache, 'summary' | 'computedAt'>, now: number, commitTimes: () => Record<string, unknown>) {
  // When the figures shown were computed (issue 32: off the request path, so they may be up to a minute old); none yet: null.
  const at = dora.computedAt();
  return { dora: { ...dora.summary(now), computedAt: at === undefined ? null : new Date(at).toISOString(), commitTimes: commitTimes() } };
}

type DoraState = ReturnType<typeof doraState>['dora'];

/** The DORA keys of the window per repository and environment (`/state`'s `dora`), when the bridge computes them. */
export function doraPage(state: Readonly<Record<string, unknown>>, titles: Titles): string {
  const dora = state.dora as Pick<DoraState, 'windowDays' | 'environments'> | undefined;
  if (dora === undefined) return '';
  const failure = (rate: number | null, failed: number, of: number) =>
    rate === null ? UNKNOWN : `${Math.round(rate * 100)}% (${failed}/${of})`;
  const rows = dora.environments.map(
    (e) =>
      `<tr>${cell(titles[e.forge] ?? e.forge)}${cell(e.repository)}${cell(e.environment)}${cell(e.deployments)}` +
      cell(readableSeconds(e.leadTimeMedianSeconds)) +
      cell(failure(e.changeFailureRate, e.failedChanges, e.deployments)) +
      `${cell(readableSeconds(e.timeToRestoreMedianSeconds))}</tr>`,
  );
  return (
    `<h2>DORA, the last ${dora.windowDays} days</h2>` +
    (rows.length === 0
      ? '<p class="none">none yet: no finished deployment in a counted environment (production, or DORA_ENVIRONMENTS)</p>'
      : table(
          ['forge', 'repository', 'environment', 'deployments', 'lead time (median)', 'change failure', 'time to restore (median)'],
          rows,
        )) +
    (rows.length > 0
      ? '<p class="none">— : not known yet (no commit time, no failure to restore). docs/dora.md says what each figure is.</p>'
      : '')
  );
}
