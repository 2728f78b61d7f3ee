/**
 * Pull request comments as a feature (`PULL_REQUEST_COMMENTS`): one comment per pull request and cluster, through
 * each forge's comments port, fed by the reconcile's hooks; its part of `/state` and of the status page.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../../common/metrics.js';
import type { CommentsPort } from '../../forges/comments-port.js';
import type { ReconcileHooks } from '../../reconcile/reconcile-hooks.js';
import type { Db } from '../../store/database.js';
import type { Feature } from '../feature.js';
import { CommentStore } from './comment-store.js';
import { commentsPage, commentsState, pullRequestOfRow } from './comments-section.js';
import { PullRequestComments } from './pr-comments.js';

/** The reconcile's hooks of the comments: a published target's row (its pull request looked up first), an ended one's `gone`, the due writes. */
export function commentHooks(comments: Pick<PullRequestComments, 'published' | 'settle' | 'lookup' | 'retired'>): ReconcileHooks {
  return {
    async beforePublish({ target, pullRequest: named }) {
      const pullRequest = named ?? (await comments.lookup(target)) ?? null;
      if (pullRequest === null) return undefined;
      return (state) => {
        if ('number' in pullRequest) {
          comments.published(target, pullRequest, state);
          return undefined;
        }
        // A pull request annotation that names none: reported, but without a comment row; a skip (logged once, in /state, counted).
        return { code: 'bad_pull_request', reason: `reported, but no pull request comment row: ${pullRequest.problem}` };
      };
    },
    retired: (row) => comments.retired(row),
    settle: () => comments.settle(),
  };
}

export interface CommentsFeatureOptions {
  db: Db;
  /** Each configured forge's comments, by forge name. */
  ports: Readonly<Record<string, CommentsPort | undefined>>;
  cluster: string;
  windowMs: number;
  lookup: boolean;
  dryRun: boolean;
  metrics: Metrics;
  log: Logger;
  now: () => number;
}

/** The comments' part of `/state` (each deployment's pull request, the comments) and of the status page. */
export function commentSections(store: CommentStore): Pick<Feature, 'state' | 'page'> {
  return {
    state: {
      place: 'deployments',
      fields: () => commentsState(store),
      row: (d) => ({ pullRequest: pullRequestOfRow(store, d) }),
      lists: ['pullRequestComments'],
    },
    page: { place: 'queue', render: commentsPage },
  };
}

export function commentsFeature(o: CommentsFeatureOptions): Feature {
  const store = new CommentStore(o.db);
  const comments = new PullRequestComments({ ...o, store, log: o.log.child({ component: 'pull-request-comments' }) });
  return {
    name: 'comments',
    hooks: commentHooks(comments),
    ...commentSections(store),
    // A comment a crash or a stop left due (a create cut short, an edit not made) is written now.
    start: () => comments.settle(),
  };
}
