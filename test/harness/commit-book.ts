/**
 * The commits a forge simulator holds, as far as their dates go: commits registered with their dates, SHAs the
 * repository does not hold, and every other SHA existing with one default date (so tests need no setup). Each
 * forge's commit endpoint words the answer its own way; this is what they share.
 */

/** A commit's dates, ISO 8601. */
export interface CommitDates {
  committedAt: string;
  authoredAt?: string;
}

const HOUR_MS = 3_600_000;

function checked(iso: string): string {
  if (!Number.isFinite(Date.parse(iso))) throw new Error(`not an ISO 8601 date: ${iso}`);
  return iso;
}

/** Repository names (`owner/repo`, GitLab's nested groups too) and SHAs ignore case. */
const keyOf = (path: string, sha: string) => `${path.toLowerCase()}@${sha.toLowerCase()}`;

export class CommitBook {
  private readonly known = new Map<string, CommitDates>();
  private readonly missing = new Set<string>();
  /** The date of every commit not registered: as given, else an hour before `startMs` in whole seconds. */
  readonly defaultDate: string;

  /** `readPath` matches the API path (below the API root) of the forge's commit read. */
  constructor(
    defaultDate: string | undefined,
    startMs: number,
    private readonly readPath: RegExp,
  ) {
    this.defaultDate = checked(
      defaultDate ?? new Date(Math.floor(startMs / 1000) * 1000 - HOUR_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
  }

  commit(owner: string, repo: string, sha: string, dates: CommitDates): void {
    checked(dates.committedAt);
    if (dates.authoredAt !== undefined) checked(dates.authoredAt);
    const key = keyOf(`${owner}/${repo}`, sha);
    this.missing.delete(key);
    this.known.set(key, { ...dates });
  }

  missingCommit(owner: string, repo: string, sha: string): void {
    const key = keyOf(`${owner}/${repo}`, sha);
    this.known.delete(key);
    this.missing.add(key);
  }

  /** The dates of `sha` in repository `path` (`owner/repo`); undefined when it is missing. */
  dates(path: string, sha: string): Required<CommitDates> | undefined {
    const key = keyOf(path, sha);
    if (this.missing.has(key)) return undefined;
    const { committedAt, authoredAt } = this.known.get(key) ?? { committedAt: this.defaultDate };
    return { committedAt, authoredAt: authoredAt ?? committedAt };
  }

  /** Whether a recorded request is a read of the forge's commit endpoint. */
  isRead(r: { method: string; path: string }): boolean {
    return r.method === 'GET' && this.readPath.test(r.path);
  }

  clear(): void {
    this.known.clear();
    this.missing.clear();
  }
}
