/**
 * Pull request comments as a feature (`PULL_REQUEST_COMMENTS`): one comment per pull request and cluster, through
 * each forge's comments port, fed by the reconcile's hooks; its part of `/state` and of the status page.
 */
import type { ReconcileHooks } from '../../reconcile/reconcile-hooks.js';
import type { Feature, FeatureFactory } from '../feature.js';
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

/** The comments' settings. */
export interface CommentsSettings {
  /** `PULL_REQUEST_COMMENTS`: off, no feature. */
  pullRequestComments: boolean;
  /** `PULL_REQUEST_COMMENT_WINDOW`: at most one write per pull request in this many milliseconds. */
  pullRequestCommentWindowMs: number;
  /** `PULL_REQUEST_LOOKUP`: ask the forge which open pull request has the commit as its head, when no annotation says. */
  pullRequestLookup: boolean;
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

/** One comment per pull request and cluster, through each forge's comments (`PULL_REQUEST_COMMENTS`). */
export const commentsFeature: FeatureFactory<CommentsSettings> = (d, settings) => {
  if (!settings.pullRequestComments) return undefined;
  const store = new CommentStore(d.db);
  const comments = new PullRequestComments({
    store,
    ports: Object.fromEntries(d.forges.map((f) => [f.name, f.comments])),
    cluster: d.cluster,
    windowMs: settings.pullRequestCommentWindowMs,
    lookup: settings.pullRequestLookup,
    dryRun: d.dryRun,
    metrics: d.metrics,
    log: d.log.child({ component: 'pull-request-comments' }),
    now: d.now,
  });
  return {
    name: 'comments',
    hooks: commentHooks(comments),
    ...commentSections(store),
    // A comment a crash or a stop left due (a create cut short, an edit not made) is written now.
    start: () => comments.settle(),
  };
};
