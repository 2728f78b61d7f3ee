/**
 * Which path made the bridge reconcile a Flux object, from its debug log's structured `via` field (not from a
 * message's words): `watch` (a rollout watch saw a followed workload change; `woken` names the Flux objects),
 * `resync` (a resync pass queued every Flux object; logged when the pass is done), `event` (a Flux event was
 * queued; `fluxObject` names it). bench/rollout-latency.ts attributes each final status with it;
 * test/harness/wake-signals.test.ts holds the three sources in src/ to it.
 */

export type WakePath = 'watch' | 'resync' | 'event';

/** One wake: when, by which path, and which Flux objects (`Kind/namespace/name`; `all` for a resync pass). */
export interface Wake {
  via: WakePath;
  at: number;
  fluxObjects: readonly string[] | 'all';
}

const PATHS: readonly string[] = ['watch', 'resync', 'event'];
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The wakes in a bridge's JSON log lines (pino: `time` in epoch ms), oldest first. */
export function wakesFrom(lines: ReadonlyArray<Record<string, unknown>>): Wake[] {
  const out: Wake[] = [];
  for (const l of lines) {
    if (typeof l.via !== 'string' || !PATHS.includes(l.via)) continue;
    const via = l.via as WakePath;
    const at = Number(l.time);
    if (!Number.isFinite(at)) continue;
    const fluxObjects =
      via === 'resync' ? 'all' : via === 'watch' ? strings(l.woken) : typeof l.fluxObject === 'string' ? [l.fluxObject] : [];
    out.push({ via, at, fluxObjects });
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * The path that delivered a status: the last wake of `fluxObject` in [`from`, `until`] (the change it reports,
 * and the status reaching the forge), or `re-check` when none (the bridge looked again on its own schedule, or
 * a reconcile already under way read the change).
 */
export function deliveredBy(wakes: readonly Wake[], fluxObject: string, from: number, until: number): WakePath | 're-check' {
  let found: WakePath | undefined;
  for (const w of wakes) {
    if (w.at < from || w.at > until) continue;
    if (w.fluxObjects === 'all' || w.fluxObjects.includes(fluxObject)) found = w.via;
  }
  return found ?? 're-check';
}
