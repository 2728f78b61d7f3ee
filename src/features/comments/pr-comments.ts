/**
 * Keeps one comment per pull request and cluster current: the rows come from what was published (and what
 * cleanup ended), the text from `renderComment`, the writes from the forge's CommentsPort. Written only when
 * the text changes, at most once per pull request in `windowMs`; crash-safe (a pending mark before the create,
 * and after a crash the comment is looked for among the bridge's own before another is made).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { errorMessage } from '../../common/errors.js';
import type { Metrics } from '../../common/metrics.js';
import { isOwnComment, renderComment } from './comment-render.js';
import type { PullRequestRef } from '../../metadata/pull-request.js';
import { CommentRefused, ListCapped, type CommentRepo, type CommentsPort } from '../../forges/comments-port.js';
import type { DeliveryState } from '../../lifecycle/status-plan.js';
import type { ReportTarget } from '../../metadata/resolve-target.js';
import type { CommentKey, CommentStore } from './comment-store.js';
import type { DeploymentRow } from '../../store/deployment-store.js';

/** Default `PULL_REQUEST_COMMENT_WINDOW`: at most one write per pull request in this many milliseconds. */
export const DEFAULT_COMMENT_WINDOW_MS = 5_000;
/** How long a write that failed for a transient reason waits before it is tried again. */
const RETRY_MS = 30_000;
/** Longest wait for a time a forge named (a write comes back at least this often, and within Node's timer range). */
const MAX_WAIT_MS = 3_600_000;

export interface PrCommentsOptions {
  store: CommentStore;
  /** Each configured forge's comments, by forge name. */
  ports: Readonly<Record<string, CommentsPort | undefined>>;
  /** The bridge's cluster (`CLUSTER_NAME`): named by the comment's marker. */
  cluster: string;
  windowMs: number;
  /** DRY_RUN: writes are logged, not sent. */
  dryRun: boolean;
  metrics: Pick<Metrics, 'prComments'>;
  log: Logger;
  now: () => number;
  /** `PULL_REQUEST_LOOKUP`: ask the forge which open pull request has the commit as its head, when no annotation says. */
  lookup?: boolean;
  /** Runs `fn` after `ms` (a timer that does not hold the process open). */
  later?: (ms: number, fn: () => void) => void;
}

const keyString = (k: CommentKey) => `${k.forge}|${k.owner}|${k.repo}|${k.pr}|${k.cluster}`;
const hashOf = (body: string) => createHash('sha256').update(body).digest('hex');

const unrefTimer = (ms: number, fn: () => void) => {
  setTimeout(fn, ms).unref();
};

export class PullRequestComments {
  private readonly timers = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  /** DRY_RUN: the text last logged per comment, so an unchanged table is not logged again. */
  private readonly dryRunText = new Map<string, string>();
  private readonly later: (ms: number, fn: () => void) => void;
  /** PULL_REQUEST_LOOKUP's answers, per commit (null: none has it as its head). */
  private readonly byCommit = new Map<string, Promise<number | null>>();

  constructor(private readonly o: PrCommentsOptions) {
    this.later = o.later ?? unrefTimer;
  }

  private keyOf(target: ReportTarget, pr: PullRequestRef): CommentKey {
    // A remote Flux object's rows go on its cluster's comment (the spoke's, or its workload's cluster annotation).
    const cluster = target.spoke ? target.cluster : this.o.cluster;
    return { forge: target.forge, owner: target.owner, repo: target.repo, pr: pr.number, cluster };
  }

  /** Records a published target's row on its pull request; true when the comment now says something new. */
  published(target: ReportTarget, pr: PullRequestRef, state: DeliveryState): boolean {
    if (this.o.ports[target.forge] === undefined) return false;
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const row = {
      deploymentName: target.deploymentName,
      environment: target.environment,
      state,
      url: target.environmentUrl,
      sha: target.sha,
      version: str(target.payload.version),
      digest: str(target.payload.digest),
    };
    return this.o.store.putRow(this.keyOf(target, pr), row, pr.why, this.o.now());
  }

  /**
   * The pull request of a target no annotation names: the forge's open pull request whose head is the target's
   * commit (`PULL_REQUEST_LOOKUP`), asked once per commit; null when off, unsupported, none, or the forge failed
   * (a failure is not remembered: the next reconcile asks again).
   */
  async lookup(target: ReportTarget): Promise<PullRequestRef | null> {
    const port = this.o.ports[target.forge];
    if (this.o.lookup !== true || port?.pullRequestOfCommit === undefined) return null;
    const key = `${target.forge}|${target.owner}|${target.repo}|${target.sha}`;
    let answer = this.byCommit.get(key);
    if (answer === undefined) {
      answer = port.pullRequestOfCommit({ owner: target.owner, repo: target.repo }, target.sha);
      this.byCommit.set(key, answer);
      answer.catch(() => this.byCommit.delete(key));
    }
    try {
      const number = await answer;
      return number === null ? null : { number, why: `found by PULL_REQUEST_LOOKUP: open, with ${target.sha.slice(0, 7)} as its head` };
    } catch (err) {
      this.o.log.warn(
        { err: errorMessage(err), repo: `${target.owner}/${target.repo}` },
        'pull request lookup failed; asked again next time',
      );
      return null;
    }
  }

  /** A deployment that cleanup ended: its row on a pull request says `gone`. */
  retired(row: DeploymentRow): void {
    this.o.store.markGone(row, this.o.now());
  }

  /** Schedules the write of every comment that is due (after a reconcile, and at the start). */
  settle(): void {
    for (const e of this.o.store.due()) this.schedule(e, e.writtenAt);
  }

  /** Writes every due comment now, window permitting, and waits for the writes (tests and benchmarks). */
  async flushDue(): Promise<void> {
    await Promise.all(this.o.store.due().map((e) => this.flush(e)));
  }

  /** Resolves once every write under way has ended (tests, and the stop). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private schedule(key: CommentKey, writtenAt: number | null, minDelay = 0): void {
    const id = keyString(key);
    if (this.timers.has(id)) return;
    const delay = Math.max(minDelay, writtenAt === null ? 0 : writtenAt + this.o.windowMs - this.o.now());
    this.timers.add(id);
    this.later(delay, () => {
      this.timers.delete(id);
      void this.flush(key);
    });
  }

  /** One comment's write, never two at once for the same comment. */
  flush(key: CommentKey): Promise<void> {
    const id = keyString(key);
    const before = this.running.get(id) ?? Promise.resolve();
    const next = before.then(() => this.write(key));
    this.running.set(id, next);
    void next.finally(() => {
      if (this.running.get(id) === next) this.running.delete(id);
    });
    return next;
  }

  private async write(key: CommentKey): Promise<void> {
    const { store, log, now } = this.o;
    const entry = store.get(key);
    const port = this.o.ports[key.forge];
    if (entry === undefined || port === undefined || (!entry.dirty && !entry.pending)) return;
    if (entry.writtenAt !== null && entry.writtenAt + this.o.windowMs > now()) {
      this.schedule(key, entry.writtenAt);
      return;
    }
    const since = now();
    const repo = { owner: key.owner, repo: key.repo };
    const clog = log.child({ forge: key.forge, repo: `${key.owner}/${key.repo}`, pullRequest: key.pr });
    const count = (outcome: string) => this.o.metrics.prComments.inc({ forge: key.forge, outcome });
    if (this.o.dryRun) {
      this.dryRun(key, renderComment(key.cluster, store.rows(key), port.maxBodyChars), clog);
      return;
    }
    try {
      await this.checkCommits(key, port, repo, clog, count);
      const all = store.rows(key);
      // A row whose commit is not its pull request's is left out (its reason is in /state).
      const rows = all.filter((r) => r.refusal === undefined);
      const body = renderComment(key.cluster, rows, port.maxBodyChars);
      const hash = hashOf(body);
      let commentId = entry.commentId;
      if (commentId === null && entry.pending) {
        // A create was cut short: it may have reached the forge. Look for it before making another.
        const found = (await port.listOwn(repo, key.pr)).find((c) => isOwnComment(c.body, key.cluster));
        if (found !== undefined) {
          commentId = found.id;
          store.recordId(key, commentId);
          count('found');
          clog.info({ commentId }, 'pull request comment found after a restart');
          if (hashOf(found.body) === hash) {
            store.written(key, hash, now(), since);
            return;
          }
        }
      }
      if (commentId !== null) {
        if (entry.bodyHash === hash) {
          count('unchanged');
          store.written(key, hash, entry.writtenAt ?? now(), since);
          return;
        }
        if (await port.edit(repo, key.pr, commentId, body)) {
          count('edited');
          store.written(key, hash, now(), since);
          return;
        }
        clog.warn({ commentId }, 'pull request comment was deleted on the forge: making it again');
        store.recordId(key, null);
      }
      const refused = all.find((r) => r.refusal !== undefined)?.refusal;
      if (rows.length === 0 && refused !== undefined) {
        this.skip(key, refused, clog, count);
        return;
      }
      if (rows.every((r) => r.state === 'gone')) {
        store.skipped(key, 'the preview is gone: no comment is made for it now');
        return;
      }
      const pr = await port.pullRequest(repo, key.pr);
      if (!pr.open) {
        this.skip(key, `pull request #${key.pr} is closed: no new comment`, clog, count);
        return;
      }
      if (pr.locked) {
        this.skip(key, `pull request #${key.pr} is locked`, clog, count);
        return;
      }
      store.markPending(key);
      const created = await port.create(repo, key.pr, body);
      store.recordId(key, created);
      store.written(key, hash, now(), since);
      count('created');
      clog.info({ commentId: created }, 'pull request comment created');
    } catch (err) {
      if (err instanceof CommentRefused) {
        if (err instanceof ListCapped) count('list_capped');
        this.skip(key, err.reason, clog, count);
        return;
      }
      // Not sent (the comment class's budget share, or a pause): back at the time named, without a warning each time.
      const retryAt = (err as { retryAt?: unknown; notSent?: unknown } | null)?.retryAt;
      const notSent = (err as { notSent?: unknown } | null)?.notSent === true && typeof retryAt === 'number';
      count(notSent ? 'deferred' : 'failed');
      if (!notSent) clog.warn({ err: errorMessage(err) }, 'pull request comment not written; trying again later');
      this.schedule(key, null, Math.min(MAX_WAIT_MS, Math.max(notSent ? 0 : RETRY_MS, typeof retryAt === 'number' ? retryAt - now() : 0)));
    }
  }

  /**
   * Checks, once per commit, that each live row's commit is its pull request's (the head, or on its head branch):
   * an annotation can name any pull request number, and a row of another pull request's commit must not be shown.
   */
  private async checkCommits(
    key: CommentKey,
    port: CommentsPort,
    repo: CommentRepo,
    clog: Logger,
    count: (outcome: string) => void,
  ): Promise<void> {
    for (const sha of this.o.store.uncheckedShas(key)) {
      const refusal = await port.commitOnPullRequest(repo, key.pr, sha);
      this.o.store.recordCheck(key, sha, refusal ?? null);
      if (refusal === undefined) continue;
      count('foreign_commit');
      clog.warn({ sha, reason: refusal }, "pull request comment row left out: its commit is not the pull request's");
    }
  }

  private skip(key: CommentKey, reason: string, clog: Logger, count: (outcome: string) => void): void {
    // Logged once: a skipped comment is not tried again until one of its rows changes.
    if (this.o.store.get(key)?.skipReason !== reason) clog.warn({ reason }, 'pull request comment skipped');
    count('skipped');
    this.o.store.skipped(key, reason);
  }

  private dryRun(key: CommentKey, body: string, clog: Logger): void {
    const id = keyString(key);
    if (this.dryRunText.get(id) === body) return;
    this.dryRunText.set(id, body);
    clog.info({ dryRun: true, body }, 'DRY_RUN: would write the pull request comment');
  }
}
