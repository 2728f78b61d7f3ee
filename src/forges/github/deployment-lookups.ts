/**
 * The find before creates, batched when many targets are new at once (a first install, a lost database, a
 * hub reporting many clusters): instead of one REST list per new deployment, the look-ups asked within a
 * short window go out together as GraphQL queries of up to LOOKUP_REPOS repositories each (one point of
 * GraphQL's own hourly budget per query, none of REST's). A look-up asked alone (a new deployment during
 * normal operation) stays the REST find. Answers stand for FRESH_MS and are taken once, by the publisher,
 * which then adopts or creates exactly as after its own REST find; a target the query cannot answer (a
 * repository that did not answer, a full page without its commit) or any failure of the query goes to
 * the REST find. The crash protocol is the publisher's and unchanged: answers live in memory only.
 */
import type { Logger } from 'pino';
import { WaitsForTurn } from '../../common/errors.js';
import { lookupAnswers, lookupQuery, type LookupAnswer, type LookupTarget } from './deployment-query.js';
import type { GraphQLAnswer, RepoRef } from './github-types.js';

/** How long look-ups are collected before a batch leaves. */
export const LOOKUP_WINDOW_MS = 250;
/**
 * A look-up asked within this long of another target's is part of a burst: it joins a batch. Longer than a
 * REST find under load, so a Flux object's next workload (asked after its first one's REST find) joins.
 */
export const BURST_MS = 5_000;
/** Repositories per query: 100 connections of 100 nodes (10,000 nodes, 1 point). */
export const LOOKUP_REPOS = 100;
/** How long a batched answer stands (as a REST find that found nothing does for a deferred create). */
export const FRESH_MS = 10 * 60_000;
/** Queries failing in a row (timeouts, 5xx) before GraphQL rests. */
export const FAILURES_TO_REST = 3;
/** How long GraphQL stays unused after a failed query that named no time (its budget spent, an outage). */
export const GRAPHQL_REST_MS = 60_000;

/** Thrown by the publisher for a look-up that joined a batch: nothing was sent; the work comes back at `retryAt`. */
export class LookupQueued extends WaitsForTurn {
  override readonly name = 'LookupQueued';
  constructor(retryAt: number) {
    super('the look-up before this create waits for the next batch', retryAt, { operation: 'findDeployments' });
  }
}

export interface DeploymentLookupsOptions {
  /** One GraphQL query through the client of `repo`'s credentials (an App installation is per owner). */
  query(repo: RepoRef, request: { query: string; variables: Record<string, unknown> }): Promise<GraphQLAnswer>;
  log: Logger;
  now: () => number;
  windowMs?: number;
  maxRepos?: number;
}

/** Look-ups asked, batched and answered; see the file's comment. */
export class DeploymentLookups {
  private readonly queue = new Map<string, LookupTarget>();
  private readonly answers = new Map<string, { answer: LookupAnswer; at: number }>();
  private lastAsked = { key: '', at: -Infinity };
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;
  private graphqlOffUntil = 0;
  /** Queries failed in a row (no answer, a 5xx). */
  private failures = 0;
  /** Look-ups a batch could not answer: their next ask goes to REST. */
  private readonly unanswered = new Map<string, number>();
  /** Look-ups in the batch being answered, since when. */
  private readonly asking = new Set<string>();
  private askingSince = 0;
  private readonly tally = { queries: 0, failed: 0, asked: 0, answered: 0 };

  constructor(private readonly o: DeploymentLookupsOptions) {}

  private get windowMs(): number {
    return this.o.windowMs ?? LOOKUP_WINDOW_MS;
  }

  /** The fresh batched answer for the target's key, taken (a create or an adopt follows it). */
  take(key: string): (LookupAnswer & { at: number }) | undefined {
    const a = this.answers.get(key);
    this.answers.delete(key);
    return a !== undefined && a.at + FRESH_MS > this.o.now() ? { ...a.answer, at: a.at } : undefined;
  }

  /**
   * Asks for a look-up: the time its batch is answered when it joins one (look-ups were asked moments ago or
   * are waiting), undefined when it goes alone over REST (nothing else is new, or GraphQL is resting).
   */
  join(key: string, target: LookupTarget): number | undefined {
    const now = this.o.now();
    // Another target asked moments ago (the same one asking again is a retry, not a burst), or some are waiting.
    const burst = this.queue.size > 0 || this.flushing !== undefined || (this.lastAsked.key !== key && now - this.lastAsked.at < BURST_MS);
    this.lastAsked = { key, at: now };
    if (this.unanswered.delete(key) || !burst || now < this.graphqlOffUntil) return undefined;
    // Asked already (its work came back before the answer): it waits for the same batch, a while as long as the
    // batch has taken so far (a query hanging until its timeout is not asked about every window).
    if (this.asking.has(key)) return now + Math.max(this.windowMs, now - this.askingSince);
    this.queue.set(key, target);
    if (this.timer === undefined && this.flushing === undefined) this.arm(now);
    // The batch leaves at `dueAt`; its answer comes a moment later (a query, then the work comes back).
    return Math.max(this.dueAt, now) + this.windowMs;
  }

  private arm(now: number): void {
    this.dueAt = now + this.windowMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.queue.size > 0) this.arm(this.o.now());
      });
    }, this.windowMs);
    this.timer.unref();
  }

  /** Sends what is queued, a query per owner and LOOKUP_REPOS repositories, one after the other. */
  private async flush(): Promise<void> {
    const batch = [...this.queue];
    this.queue.clear();
    // Answers and refusals whose work never came back (its Flux object deleted meanwhile) are not kept.
    const stale = this.o.now() - FRESH_MS;
    for (const [key, a] of this.answers) if (a.at < stale) this.answers.delete(key);
    for (const [key, at] of this.unanswered) if (at < stale) this.unanswered.delete(key);
    for (const [key] of batch) this.asking.add(key);
    this.askingSince = this.o.now();
    try {
      for (const chunk of chunks(batch, this.o.maxRepos ?? LOOKUP_REPOS)) {
        if (this.o.now() < this.graphqlOffUntil) return; // the rest goes to REST when its work comes back
        await this.ask(chunk);
      }
    } finally {
      this.asking.clear();
    }
  }

  private async ask(chunk: Array<[string, LookupTarget]>): Promise<void> {
    const targets = chunk.map(([, t]) => t);
    const first = targets[0];
    if (first === undefined) return;
    try {
      const answer = await this.o.query({ owner: first.owner, repo: first.repo }, lookupQuery(targets));
      const at = this.o.now();
      const read = lookupAnswers(targets, answer.data);
      chunk.forEach(([key], i) => {
        const a = read[i];
        if (a !== undefined) this.answers.set(key, { answer: a, at });
        else this.unanswered.set(key, at);
      });
      const answered = read.filter((a) => a !== undefined).length;
      this.failures = 0;
      const limited = answer.errors?.find((e) => e.type === 'RATE_LIMITED');
      if (limited !== undefined) this.rest(answer.resetAt, limited.message);
      this.count(targets.length, answered, false);
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (status === 404 || status === 403) {
        // This owner's refusal (an App not installed there, no access): its look-ups go to REST, which says why; others keep batching.
        for (const [key] of chunk) this.unanswered.set(key, this.o.now());
        this.count(targets.length, 0, true);
        return;
      }
      const retryAt = (err as { retryAt?: unknown }).retryAt;
      // A rate limit rests GraphQL until its time; a timeout or an outage only after it repeats (the look-ups ask again).
      this.failures += 1;
      if (typeof retryAt === 'number' || this.failures >= FAILURES_TO_REST)
        this.rest(typeof retryAt === 'number' ? retryAt : undefined, err instanceof Error ? err.message : String(err));
      this.count(targets.length, 0, true);
    }
  }

  /** GraphQL refused or failed: look-ups go to REST (as before batching) until `until`, said once. */
  private rest(until: number | undefined, why: string): void {
    const now = this.o.now();
    const end = until !== undefined && until > now ? until : now + GRAPHQL_REST_MS;
    if (now >= this.graphqlOffUntil)
      this.o.log.warn(
        { until: new Date(end).toISOString(), reason: why },
        'batched GitHub look-ups failed: finding deployments over REST for now',
      );
    this.graphqlOffUntil = end;
  }

  private count(asked: number, answered: number, failed: boolean): void {
    this.tally.queries += 1;
    this.tally.failed += failed ? 1 : 0;
    this.tally.asked += asked;
    this.tally.answered += answered;
  }

  /** For /state: queries sent (and failed), look-ups they carried and answered, and until when GraphQL rests. */
  state(): Record<string, unknown> {
    const resting = this.graphqlOffUntil > this.o.now();
    return { ...this.tally, waiting: this.queue.size, restingUntil: resting ? new Date(this.graphqlOffUntil).toISOString() : null };
  }

  /** Stops the timer (the process ends). */
  stop(): void {
    clearTimeout(this.timer);
  }
}

/** Consecutive runs of `items` holding at most `max` repositories, one owner each. */
function chunks(items: Array<[string, LookupTarget]>, max: number): Array<Array<[string, LookupTarget]>> {
  const out: Array<Array<[string, LookupTarget]>> = [];
  const byOwner = new Map<string, Array<[string, LookupTarget]>>();
  for (const it of items) {
    const k = it[1].owner.toLowerCase();
    const group = byOwner.get(k) ?? [];
    group.push(it);
    byOwner.set(k, group);
  }
  for (const group of byOwner.values()) {
    let cur: Array<[string, LookupTarget]> = [];
    const repos = new Set<string>();
    for (const it of group) {
      const r = it[1].repo.toLowerCase();
      if (!repos.has(r) && repos.size >= max) {
        out.push(cur);
        cur = [];
        repos.clear();
      }
      repos.add(r);
      cur.push(it);
    }
    if (cur.length > 0) out.push(cur);
  }
  return out;
}
