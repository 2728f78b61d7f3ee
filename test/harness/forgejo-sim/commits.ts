/**
 * Forgejo's single commit in the simulator (`GET /repos/{owner}/{repo}/git/commits/{sha}`, repoGetSingleCommit):
 * registered commits with their dates, missing ones answering 404, every other full SHA existing with a default
 * date, and 422 for a sha that is no valid ref pattern, as `routers/api/v1/repo/commits.go` does. Each request and
 * answer is checked against `test/fixtures/forgejo-openapi-commits.json`; an unknown query parameter is recorded
 * (Forgejo ignores it).
 */
import { fixturePath } from '../../fixtures/locate.js';
import { compileSwagger, loadSwagger, type SwaggerValidators } from './spec.js';
import type { CommitBook, CommitDates } from '../commit-book.js';
import { apiError, notFoundBody, type Site } from './wire.js';
import type { Reply, Violation } from './routes.js';

const OP = 'repoGetSingleCommit';
/** The read's path below the API root. */
export const COMMIT_PATH = /^\/repos\/([^/]+)\/([^/]+)\/git\/commits\/(.+)$/;
const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
/** What git's check-ref-format (Forgejo's `IsValidRefPattern`) refuses in a ref name. */
const INVALID_REF = /[ ~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$|\.$|\.lock$|(?:^|\/)\.|^@$/;
/** Control characters are no part of a ref name either. */
const isInvalidRef = (ref: string): boolean => INVALID_REF.test(ref) || /\p{Cc}/u.test(ref);

/** A git date as Forgejo writes it (RFC 3339, whole seconds, the committer's offset kept). */
function gitDate(iso: string): string {
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)$/.test(iso)) return iso;
  return new Date(Date.parse(iso)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class ForgejoCommits {
  private readonly spec: SwaggerValidators;

  constructor(
    private readonly violation: (v: Omit<Violation, 'method' | 'path'>) => void,
    private readonly book: CommitBook,
  ) {
    const swagger = loadSwagger(fixturePath('forgejo-openapi-commits.json'));
    // The commit slice has no commit statuses (compileSwagger wants a state list; this one is unused).
    this.spec = compileSwagger({ ...swagger, 'x-commit-status-states': { values: ['none'] } });
  }

  /** The answer to a commit read (path below /api/v1), or undefined when it is not one. */
  answer(site: Site, method: string, path: string, query: Record<string, string>): Reply | undefined {
    const m = method === 'GET' ? COMMIT_PATH.exec(path) : null;
    if (m === null) return undefined;
    const [owner = '', repo = '', sha = ''] = m.slice(1).map(decodeURIComponent);
    const problems = this.spec.query(OP, query);
    if (problems.length > 0) this.violation({ operation: OP, kind: 'query', errors: problems, data: query });
    if (isInvalidRef(sha)) return this.checked(422, apiError(site, `no valid ref or sha: ${sha}`));
    // The simulator holds no branches or tags: a ref that is not a full SHA names nothing it has.
    const dates = FULL_SHA.test(sha) ? this.book.dates(`${owner}/${repo}`, sha) : undefined;
    if (dates === undefined) return this.checked(404, notFoundBody(site));
    return this.checked(200, this.wire(site, owner, repo, sha.toLowerCase(), dates));
  }

  private checked(status: number, body: unknown): Reply {
    const errors = this.spec.response(OP, status, body);
    if (errors.length > 0) this.violation({ operation: OP, kind: 'response', errors, data: body });
    return { status, body };
  }

  /** `convert.ToCommit` with stat, verification and files off; the unset `author`/`committer` users (null) left out. */
  private wire(site: Site, owner: string, repo: string, sha: string, dates: Required<CommitDates>) {
    const api = `${site.apiBase}/repos/${owner}/${repo}/git`;
    const committed = gitDate(dates.committedAt);
    const person = (date: string) => ({ name: 'Octo Cat', email: 'octocat@example.invalid', date });
    const tree = sha.split('').reverse().join('');
    return {
      url: `${api}/commits/${sha}`,
      sha,
      created: committed,
      html_url: `${site.webUrl}/${owner}/${repo}/commit/${sha}`,
      commit: {
        url: `${api}/commits/${sha}`,
        author: person(gitDate(dates.authoredAt)),
        committer: person(committed),
        message: `Commit ${sha.slice(0, 7)}\n`,
        tree: { url: `${api}/trees/${tree}`, sha: tree, created: committed },
      },
      parents: [],
    };
  }
}
