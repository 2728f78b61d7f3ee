/**
 * GitHub's git commit objects in the simulator (`GET /repos/{owner}/{repo}/git/commits/{commit_sha}`): registered
 * commits with their dates, missing ones answering 404, and every other full SHA existing with a default date. Each
 * request is validated against `test/fixtures/github-openapi-commits.json` and each answer against its schema.
 */
import { compileSpec, loadFixture, seenBody, type EndpointKey, type SpecValidators } from './spec.js';
import type { Reply, Violation } from './routes.js';
import type { CommitBook, CommitDates } from '../commit-book.js';
import { fixturePath } from '../../fixtures/locate.js';

const FIXTURE_FILE = 'github-openapi-commits.json';
const ENDPOINT = 'GET /repos/{owner}/{repo}/git/commits/{commit_sha}';
/** The read's path below the API root. */
export const COMMIT_PATH = /^\/repos\/([^/]+)\/([^/]+)\/git\/commits\/([^/]+)$/;

/** GitHub's git dates: UTC, whole seconds. */
function gitDate(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class CommitSim {
  private readonly spec: SpecValidators;

  constructor(
    private readonly url: () => string,
    private readonly violation: (v: Pick<Violation, 'kind' | 'errors' | 'data'> & { endpoint: string }) => void,
    private readonly book: CommitBook,
    path = fixturePath(FIXTURE_FILE),
  ) {
    this.spec = compileSpec(loadFixture(path));
  }

  /** The answer to a commit read, or undefined when the request is not one. */
  answer(method: string, path: string, query: Record<string, string>): Reply | undefined {
    const m = method === 'GET' ? COMMIT_PATH.exec(path) : null;
    if (m === null) return undefined;
    const [owner = '', repo = '', sha = ''] = m.slice(1).map(decodeURIComponent);
    // The description has no query parameters: GitHub ignores unknown ones, the simulator records them.
    const params = this.spec.fixture.endpoints[ENDPOINT as EndpointKey].queryParams ?? {};
    const unknown = Object.keys(query).filter((k) => !(k in params));
    if (unknown.length > 0)
      this.violation({ endpoint: ENDPOINT, kind: 'query', errors: unknown.map((k) => `unknown query parameter ${k}`), data: query });
    const dates = /^[0-9a-f]{40}$/i.test(sha) ? this.book.dates(`${owner}/${repo}`, sha) : undefined;
    if (dates === undefined) {
      const seen = seenBody(this.spec.fixture, 'gitCommit.404.unknownSha');
      return this.checked({ status: seen.status, body: seen.body });
    }
    return this.checked({ status: 200, body: this.wire(owner, repo, sha.toLowerCase(), dates) });
  }

  /** The simulator's own answer must match the response schema too. */
  private checked(reply: Reply): Reply {
    const errors = this.spec.response(ENDPOINT as EndpointKey, reply.status, reply.body);
    if (errors.length > 0) this.violation({ endpoint: ENDPOINT, kind: 'response', errors, data: reply.body });
    return reply;
  }

  private wire(owner: string, repo: string, sha: string, dates: Required<CommitDates>) {
    const base = `${this.url()}/repos/${owner}/${repo}/git`;
    const person = (date: string) => ({ name: 'Octo Cat', email: 'octocat@users.noreply.github.com', date: gitDate(date) });
    const tree = sha.split('').reverse().join('');
    return {
      sha,
      node_id: `C_${Buffer.from(sha).toString('base64url').slice(0, 20)}`,
      url: `${base}/commits/${sha}`,
      html_url: `https://github.com/${owner}/${repo}/commit/${sha}`,
      author: person(dates.authoredAt),
      committer: person(dates.committedAt),
      tree: { sha: tree, url: `${base}/trees/${tree}` },
      message: `Commit ${sha.slice(0, 7)}`,
      parents: [],
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    };
  }
}
