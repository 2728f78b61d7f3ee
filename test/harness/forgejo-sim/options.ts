/** What a Forgejo simulator is started with, and what it records of each request. */
import type { SimRecord } from '../sim-server.js';
import type { RepoFacts } from './routes.js';

export interface ForgejoSimulatorOptions extends RepoFacts {
  /** Accepted tokens (`Authorization: token X` or `Bearer X`); when omitted any token is accepted, none still gets 401. */
  tokens?: string[];
  /** "owner/repo" names that exist; others answer 404. */
  repos?: string[];
  /** Without `repos`: the owners whose every repository exists (default DEFAULT_OWNERS, `acme`); others answer 404. */
  owners?: string[];
  /** A sub-path install: the web base URL ends in it, the API is below it (e.g. "/forgejo" → "/forgejo/api/v1"). */
  pathPrefix?: string;
  /** Delay every answer by this many milliseconds. */
  latencyMs?: number;
  /** The token's user, and the creator of statuses. */
  login?: string;
  /** What `GET /version` answers. */
  version?: string;
  /** Epoch milliseconds for `created_at` (whole seconds are kept); default Date.now. */
  clock?: () => number;
  /** Committer and author date of every full SHA not registered with `commit()` (default: an hour before the start, whole seconds). */
  defaultCommitDate?: string;
  /** Path of forgejo-openapi-statuses.json; default <repo>/test/fixtures/. */
  fixturePath?: string;
}

/** One request as the simulator saw it; `path` is below `/api/v1`, without the query. */
export interface RecordedRequest extends SimRecord {
  credential?: 'none' | 'token';
}
