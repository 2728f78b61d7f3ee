/**
 * GitLab's merge request conversation in the simulator: merge requests (opened, closed, merged, locked; a locked
 * discussion), their notes (list newest first by default, paginated with `x-next-page`/`x-total-pages`; create;
 * update) and the merge requests of a commit, each request and answer checked against the OpenAPI slice. As GitLab
 * does: an unknown merge request is `404 Merge Request Not Found`, only a note's author edits it (403 otherwise),
 * a locked discussion refuses a new note from a user who is not a project member (`member: false`) with 403, an
 * empty note is a 400 validation error.
 */
import type { OperationId } from './spec.js';
import { params, type Reply, type RouteContext } from './routes.js';
import type { ProjectState } from './state.js';
import { gitlabPage, userBasic } from './wire.js';

export type MergeRequestState = 'opened' | 'closed' | 'merged' | 'locked';

export interface SimMergeRequest {
  state: MergeRequestState;
  /** `discussion_locked`: only members may comment. */
  discussionLocked: boolean;
  /** The head commit. */
  sha: string;
}

export interface StoredNote {
  id: number;
  projectId: number;
  iid: number;
  body: string;
  author: string;
  createdAt: number;
  updatedAt: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const NOTES = /^\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/;
const MR = /^\/projects\/([^/]+)\/merge_requests\/(\d+)$/;
const OF_COMMIT = /^\/projects\/([^/]+)\/repository\/commits\/([^/]+)\/merge_requests$/;

export class GitLabConversation {
  readonly notes: StoredNote[] = [];
  private readonly mrs = new Map<string, SimMergeRequest>();
  private nextId = 3001;
  /** Whether the token's user is a project member (a locked discussion still takes its notes). */
  member = false;

  constructor(private readonly now: () => number) {}

  mergeRequest(p: ProjectState, iid: number, mr: Partial<SimMergeRequest>): void {
    const key = `${p.id}!${iid}`;
    this.mrs.set(key, { ...(this.mrs.get(key) ?? { state: 'opened', discussionLocked: false, sha: '' }), ...mr });
  }

  of(p: ProjectState, iid: number): StoredNote[] {
    return this.notes.filter((n) => n.projectId === p.id && n.iid === iid);
  }

  clear(): void {
    this.notes.length = 0;
    this.mrs.clear();
  }

  /** The answer to a merge request request (path below /api/v4), or undefined when it is not one. */
  answer(ctx: RouteContext, method: string, path: string): Reply | undefined {
    const notes = NOTES.exec(path);
    const single = MR.exec(path);
    const ofCommit = OF_COMMIT.exec(path);
    const m = notes ?? single ?? ofCommit;
    if (m === null) return undefined;
    const p = ctx.book.project(decodeURIComponent(m[1] ?? ''));
    if (p === undefined || (p.facts.members !== undefined && !p.facts.members.includes(ctx.username)))
      return { status: 404, body: ctx.spec.errorBody('projectNotFound.404') };
    if (ofCommit !== null) return method === 'GET' ? this.ofCommit(ctx, p, decodeURIComponent(ofCommit[2] ?? '')) : undefined;
    const iid = Number(m[2]);
    const mr = this.mrs.get(`${p.id}!${iid}`);
    if (mr === undefined) return { status: 404, body: ctx.spec.errorBody('mergeRequestNotFound.404') };
    if (single !== null)
      return method === 'GET'
        ? { status: 200, operation: 'getApiV4ProjectsIdMergeRequestsMergeRequestIid', body: this.wireMr(ctx, p, iid, mr) }
        : undefined;
    const noteId = notes?.[3];
    if (noteId === undefined && method === 'GET') return this.list(ctx, p, iid);
    if (noteId === undefined && method === 'POST') return this.create(ctx, p, iid, mr);
    if (noteId !== undefined && method === 'PUT') return this.update(ctx, p, iid, Number(noteId));
    return undefined;
  }

  private list(ctx: RouteContext, p: ProjectState, iid: number): Reply {
    const op: OperationId = 'getApiV4ProjectsIdMergeRequestsNoteableIdNotes';
    const refused = params(ctx, op, 'query');
    if (refused !== undefined) return refused;
    const key = ctx.query.order_by === 'updated_at' ? (n: StoredNote) => n.updatedAt : (n: StoredNote) => n.createdAt;
    const sign = ctx.query.sort === 'asc' ? 1 : -1;
    const found = this.of(p, iid).sort((a, b) => sign * (key(a) - key(b) || a.id - b.id));
    const { page, headers } = gitlabPage(found, ctx.query, ctx.selfUrl);
    return { status: 200, operation: op, headers, body: page.map((n) => this.wire(ctx, n)) };
  }

  private create(ctx: RouteContext, p: ProjectState, iid: number, mr: SimMergeRequest): Reply {
    const op: OperationId = 'postApiV4ProjectsIdMergeRequestsNoteableIdNotes';
    const refused = params(ctx, op, 'body') ?? blank(ctx);
    if (refused !== undefined) return refused;
    if ((mr.discussionLocked || mr.state === 'locked') && !this.member) return { status: 403, body: ctx.spec.errorBody('forbidden.403') };
    const at = this.now();
    const n: StoredNote = {
      id: this.nextId++,
      projectId: p.id,
      iid,
      body: (ctx.body as { body: string }).body,
      author: ctx.username,
      createdAt: at,
      updatedAt: at,
    };
    this.notes.push(n);
    return { status: 201, operation: op, body: this.wire(ctx, n), didWork: true };
  }

  private update(ctx: RouteContext, p: ProjectState, iid: number, id: number): Reply {
    const op: OperationId = 'putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId';
    const refused = params(ctx, op, 'body') ?? blank(ctx);
    if (refused !== undefined) return refused;
    const n = this.of(p, iid).find((x) => x.id === id);
    if (n === undefined) return { status: 404, body: ctx.spec.errorBody('noteNotFound.404') };
    if (n.author !== ctx.username) return { status: 403, body: ctx.spec.errorBody('forbidden.403') };
    n.body = (ctx.body as { body: string }).body;
    n.updatedAt = this.now();
    return { status: 200, operation: op, body: this.wire(ctx, n), didWork: true };
  }

  /** Merge requests whose head is the commit, in any state (GitLab's list also has those that merely contain it). */
  private ofCommit(ctx: RouteContext, p: ProjectState, sha: string): Reply {
    const op: OperationId = 'getApiV4ProjectsIdRepositoryCommitsShaMergeRequests';
    const refused = params(ctx, op, 'query');
    if (refused !== undefined) return refused;
    if (ctx.book.refsOf(p, sha) === undefined) return { status: 404, body: { message: '404 Commit Not Found' } };
    const found = [...this.mrs]
      .filter(
        ([key, mr]) => key.startsWith(`${p.id}!`) && mr.sha === sha && (ctx.query.state === undefined || mr.state === ctx.query.state),
      )
      .map(([key, mr]) => this.wireMr(ctx, p, Number(key.split('!')[1]), mr));
    const { page, headers } = gitlabPage(found, ctx.query, ctx.selfUrl);
    return { status: 200, operation: op, headers, body: page };
  }

  private wire(ctx: RouteContext, n: StoredNote) {
    return {
      id: n.id,
      type: null,
      body: n.body,
      author: userBasic(ctx.webUrl, n.author),
      created_at: iso(n.createdAt),
      updated_at: iso(n.updatedAt),
      system: false,
      noteable_id: 90_000 + n.iid,
      noteable_type: 'MergeRequest',
      noteable_iid: n.iid,
      project_id: n.projectId,
      resolvable: false,
      confidential: false,
      internal: false,
    };
  }

  private wireMr(ctx: RouteContext, p: ProjectState, iid: number, mr: SimMergeRequest) {
    return {
      id: 90_000 + iid,
      iid,
      project_id: p.id,
      title: `Merge request !${iid}`,
      state: mr.state,
      source_branch: `feature-${iid}`,
      target_branch: p.facts.defaultBranch ?? 'main',
      sha: mr.sha,
      discussion_locked: mr.discussionLocked,
      web_url: `${ctx.webUrl}/${p.facts.path}/-/merge_requests/${iid}`,
    };
  }
}

/** `Note` validates `note` presence: an empty body is GitLab's 400 validation error. */
function blank(ctx: RouteContext): Reply | undefined {
  const text = (ctx.body as { body?: unknown } | undefined)?.body;
  if (typeof text === 'string' && text.trim() !== '') return undefined;
  ctx.violation({ kind: 'semantic', errors: ["note can't be blank"], data: ctx.body });
  return { status: 400, body: { message: { note: ["can't be blank"] } } };
}
