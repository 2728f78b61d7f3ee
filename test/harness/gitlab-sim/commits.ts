/**
 * GitLab's single commit in the simulator (`GET /projects/{id}/repository/commits/{sha}`): registered commits with
 * their dates, missing ones answering `404 Commit Not Found`, every other full SHA existing with a default date. The
 * project must exist and be visible as for the other project routes; the query is checked like Grape does (an
 * undeclared parameter ignored, and recorded) and the answer against `APIEntitiesCommitDetail`.
 */
import type { OperationId } from './spec.js';
import { params, type Reply, type RouteContext } from './routes.js';

const OP: OperationId = 'getApiV4ProjectsIdRepositoryCommitsSha';
const PATH = /^\/projects\/([^/]+)\/repository\/commits\/([^/]+)$/;

/** A commit's dates, ISO 8601. */
export interface CommitDates {
  committedAt: string;
  authoredAt?: string;
}

/** A git date as GitLab writes it: milliseconds and the committer's offset (`2026-11-30T10:00:00.000+02:00`). */
function gitDate(iso: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  if (m === null || !Number.isFinite(Date.parse(iso))) throw new Error(`not an ISO 8601 date: ${iso}`);
  return `${m[1]}${(m[2] ?? '.000').padEnd(4, '0').slice(0, 4)}${m[3]}`;
}

/** Whether a recorded request is a read of this endpoint (for `commitReads()`). */
export const isCommitRead = (r: { method: string; path: string }): boolean => r.method === 'GET' && PATH.test(r.path);

export class GitLabCommits {
  private readonly known = new Map<string, CommitDates>();
  private readonly missing = new Set<string>();

  constructor(private readonly defaultDate: string) {
    gitDate(defaultDate);
  }

  /** Registers a commit of project `owner/repo` (the owner may be nested groups). */
  commit(owner: string, repo: string, sha: string, dates: CommitDates): void {
    gitDate(dates.committedAt);
    if (dates.authoredAt !== undefined) gitDate(dates.authoredAt);
    const key = commitKey(`${owner}/${repo}`, sha);
    this.missing.delete(key);
    this.known.set(key, { ...dates });
  }

  missingCommit(owner: string, repo: string, sha: string): void {
    const key = commitKey(`${owner}/${repo}`, sha);
    this.known.delete(key);
    this.missing.add(key);
  }

  clear(): void {
    this.known.clear();
    this.missing.clear();
  }

  /** The answer to a commit read (path below /api/v4), or undefined when it is not one. */
  answer(ctx: RouteContext, method: string, path: string): Reply | undefined {
    const m = method === 'GET' ? PATH.exec(path) : null;
    if (m === null) return undefined;
    const p = ctx.book.project(decodeURIComponent(m[1] ?? ''));
    if (p === undefined || (p.facts.members !== undefined && !p.facts.members.includes(ctx.username)))
      return { status: 404, body: ctx.spec.errorBody('projectNotFound.404') };
    const refused = params(ctx, OP, 'query');
    if (refused !== undefined) return refused;
    const sha = decodeURIComponent(m[2] ?? '');
    const key = commitKey(p.facts.path, sha);
    // The simulator resolves no branch or tag names here: only a full SHA names a commit.
    if (!/^[0-9a-f]{40}$/i.test(sha) || this.missing.has(key)) return { status: 404, body: { message: '404 Commit Not Found' } };
    const dates = this.known.get(key) ?? { committedAt: this.defaultDate };
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
        authored_date: gitDate(dates.authoredAt ?? dates.committedAt),
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

function commitKey(path: string, sha: string): string {
  return `${path.toLowerCase()}@${sha.toLowerCase()}`;
}
