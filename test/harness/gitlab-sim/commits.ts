/**
 * GitLab's single commit in the simulator (`GET /projects/{id}/repository/commits/{sha}`): registered commits with
 * their dates, missing ones answering `404 Commit Not Found`, every other full SHA existing with a default date. The
 * project must exist and be visible as for the other project routes; the query is checked like Grape does (an
 * undeclared parameter ignored, and recorded) and the answer against `APIEntitiesCommitDetail`.
 */
import type { OperationId } from './spec.js';
import { params, type Reply, type RouteContext } from './routes.js';
import type { CommitBook } from '../commit-book.js';

const OP: OperationId = 'getApiV4ProjectsIdRepositoryCommitsSha';
/** The read's path below the API root. */
export const COMMIT_PATH = /^\/projects\/([^/]+)\/repository\/commits\/([^/]+)$/;

/** A git date as GitLab writes it: milliseconds and the committer's offset (`2026-11-30T10:00:00.000+02:00`). */
function gitDate(iso: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  if (m === null) return new Date(Date.parse(iso)).toISOString();
  return `${m[1]}${(m[2] ?? '.000').padEnd(4, '0').slice(0, 4)}${m[3]}`;
}

export class GitLabCommits {
  constructor(private readonly book: CommitBook) {}

  /** The answer to a commit read (path below /api/v4), or undefined when it is not one. */
  answer(ctx: RouteContext, method: string, path: string): Reply | undefined {
    const m = method === 'GET' ? COMMIT_PATH.exec(path) : null;
    if (m === null) return undefined;
    const p = ctx.book.project(decodeURIComponent(m[1] ?? ''));
    if (p === undefined || (p.facts.members !== undefined && !p.facts.members.includes(ctx.username)))
      return { status: 404, body: ctx.spec.errorBody('projectNotFound.404') };
    const refused = params(ctx, OP, 'query');
    if (refused !== undefined) return refused;
    const sha = decodeURIComponent(m[2] ?? '');
    // The simulator resolves no branch or tag names here: only a full SHA names a commit.
    const dates = /^[0-9a-f]{40}$/i.test(sha) ? this.book.dates(p.facts.path, sha) : undefined;
    if (dates === undefined) return { status: 404, body: { message: '404 Commit Not Found' } };
    const committed = gitDate(dates.committedAt);
    const lower = sha.toLowerCase();
    return {
      status: 200,
      operation: OP,
      body: {
        id: lower,
        short_id: lower.slice(0, 8),
        created_at: committed,
        parent_ids: [],
        title: `Commit ${lower.slice(0, 8)}`,
        message: `Commit ${lower.slice(0, 8)}\n`,
        author_name: 'Octo Cat',
        author_email: 'octocat@example.invalid',
        authored_date: gitDate(dates.authoredAt),
        committer_name: 'Octo Cat',
        committer_email: 'octocat@example.invalid',
        committed_date: committed,
        trailers: {},
        extended_trailers: {},
        web_url: `${ctx.webUrl}/${p.facts.path}/-/commit/${lower}`,
        ...(ctx.query.stats === 'false' ? {} : { stats: { additions: 1, deletions: 0, total: 1 } }),
        last_pipeline: null,
        status: null,
        project_id: p.id,
      },
    };
  }
}
