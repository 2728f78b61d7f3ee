import type { Logger } from 'pino';
import { errorMessage } from '../../common/errors.js';
import { commitsForbidden, type CommitTimesPort } from '../../forges/commit-times-port.js';
import { ForgePaused } from '../../forges/forge-health.js';
import type { CommitRef, CommitTimeStore, OutcomeEnvironment } from './commit-time-store.js';

/** How often the reader looks for new counted commits (a look is one cheap query when nothing changed). */
export const COMMIT_TIMES_INTERVAL_MS = 15_000;
/** How far back a success's commit is still wanted: the figures' window and the rollback window. */
export const COMMIT_TIMES_LOOKBACK_MS = 31 * 86_400_000;
/** At most this many reads per look (the rest wait for the next one): reads share each forge's primary budget. */
const READS_PER_LOOK = 20;
/** A failed read is asked again after 5 minutes, doubling, at most a day. */
const RETRY_BASE_MS = 5 * 60_000;
const RETRY_MAX_MS = 86_400_000;
/** A forge whose credential may not read commits (403: GitHub's Contents permission) is asked again after this long. */
export const FORBIDDEN_HOLD_MS = 6 * 60 * 60_000;

export const retryDelayMs = (attempts: number): number => Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));

export interface CommitTimesOptions {
  store: CommitTimeStore;
  /** The forges that can read commit times, by name. */
  forges: ReadonlyMap<string, CommitTimesPort>;
  /** Whether an environment's figures are computed (production, `DORA_ENVIRONMENTS`; previews never): only its commits are read. */
  counts: (env: OutcomeEnvironment) => boolean;
  /** Told each read's result (metrics). */
  onRead?: (forge: string, result: 'known' | 'missing' | 'failed') => void;
  log: Logger;
  now: () => number;
  intervalMs?: number;
}

/**
 * Reads the committer date of each commit that succeeded in a counted environment, once (the DORA lead time):
 * never for previews or environments whose figures nobody computes, never twice for one commit, a failed read
 * asked again with backoff. A look costs one query when no outcome was recorded and no retry is due.
 */
export class CommitTimes {
  private timer: NodeJS.Timeout | undefined;
  private seen = -1;
  private running: Promise<number> | undefined;
  private stopped = false;
  /** Forges whose credential may not read commits, until when. */
  private readonly held = new Map<string, number>();
  /** The last failure, for /state (its reason was logged once, at the commit's first failed read). */
  lastError: { at: number; forge: string; reason: string } | undefined;

  constructor(private readonly o: CommitTimesOptions) {}

  start(): void {
    void this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.o.intervalMs ?? COMMIT_TIMES_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** A look now rather than at the next interval (an outcome may have been recorded); cheap when nothing changed. */
  nudge(): void {
    void this.runOnce();
  }

  /** One look (never two at once); the number of reads it made. */
  runOnce(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.running ??= this.look().finally(() => (this.running = undefined));
    return this.running;
  }

  private async look(): Promise<number> {
    let reads = 0;
    try {
      const now = this.o.now();
      const version = this.o.store.outcomesVersion();
      const retry = this.o.store.nextRetryAt();
      if (version === this.seen && (retry === null || retry > now)) return 0;
      let complete = true;
      for (const ref of this.wanted(now)) {
        if (reads >= READS_PER_LOOK) break;
        if (this.heldNow(ref.forge)) {
          complete = false;
          continue;
        }
        const result = await this.read(ref);
        if (result === 'paused') complete = false;
        else reads += 1;
      }
      // Seen only once everything wanted is answered: a pause, or a full look (more may wait), and the next look goes on.
      if (reads >= READS_PER_LOOK || [...this.held.keys()].some((forge) => this.heldNow(forge))) complete = false;
      if (complete) this.seen = version;
    } catch (err) {
      // The database failed (the storage health reports it): the next look tries again.
      this.o.log.warn({ err: errorMessage(err) }, 'could not keep commit times; trying again later');
    }
    return reads;
  }

  /** The commits to read now, oldest success first, of the counted environments and forges that can read them. */
  private wanted(now: number): CommitRef[] {
    const from = now - COMMIT_TIMES_LOOKBACK_MS;
    const refs = new Map<string, CommitRef>();
    for (const env of this.o.store.environments(from)) {
      if (!this.o.forges.has(env.forge) || this.heldNow(env.forge) || !this.o.counts(env)) continue;
      for (const ref of this.o.store.wanted(env, from, now, READS_PER_LOOK))
        refs.set(JSON.stringify([ref.forge, ref.owner, ref.repo, ref.sha]), ref);
    }
    return [...refs.values()];
  }

  /** Whether the forge's commit reads are held (its credential may not read commits). */
  private heldNow(forge: string): boolean {
    return (this.held.get(forge) ?? 0) > this.o.now();
  }

  private async read(ref: CommitRef): Promise<'known' | 'missing' | 'failed' | 'paused'> {
    const port = this.o.forges.get(ref.forge);
    if (port === undefined) return 'paused';
    const now = this.o.now();
    const fields = { forge: ref.forge, repository: `${ref.owner}/${ref.repo}`, sha: ref.sha };
    let at: number | null;
    try {
      at = await port.committedAt(ref.owner, ref.repo, ref.sha);
    } catch (err) {
      // Paused (a rate limit, rejected credentials): not a failure of this commit; the next look asks again.
      if (err instanceof ForgePaused) return 'paused';
      const reason = errorMessage(err);
      this.lastError = { at: now, forge: ref.forge, reason };
      if (commitsForbidden(err)) {
        // The credential's permission, not this commit: every commit of the forge waits, logged once per hold.
        this.held.set(ref.forge, now + FORBIDDEN_HOLD_MS);
        this.o.log.warn(
          { forge: ref.forge, err: reason },
          'the credential may not read commits (GitHub: Contents read); lead times stay unknown, asked again in 6 hours',
        );
        this.o.onRead?.(ref.forge, 'failed');
        return 'paused';
      }
      const attempts = this.o.store.failed(ref, reason, now + retryDelayMs(this.o.store.attempts(ref) + 1), now);
      // Logged once per commit; /state keeps the last one.
      if (attempts === 1)
        this.o.log.warn({ ...fields, err: reason }, "could not read the commit's time; its lead time waits (asked again with backoff)");
      this.o.onRead?.(ref.forge, 'failed');
      return 'failed';
    }
    this.o.store.record(ref, at, now);
    if (at === null) this.o.log.info(fields, 'the forge does not hold the commit: its lead time stays unknown');
    const result = at === null ? 'missing' : 'known';
    this.o.onRead?.(ref.forge, result);
    return result;
  }
}
