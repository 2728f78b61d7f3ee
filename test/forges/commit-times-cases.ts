/**
 * What every forge's commit times must do against its own simulator (the simulators share the commit API):
 * the registered committer date in epoch milliseconds, null for a commit the forge does not hold, a throw (not
 * null) for a 503, one read per call, no write, and no request or answer off the forge's description.
 */
import type { Test } from 'tap';
import type { CommitTimesPort } from '../../src/forges/commit-times-port.js';
import type { Fault } from '../harness/github-sim/faults.js';
import type { CommitDates } from '../harness/commit-book.js';
import type { SimRecord } from '../harness/sim-server.js';

/** The part of a forge simulator these cases use. */
export interface CommitSimulator {
  readonly violations: readonly unknown[];
  commit(owner: string, repo: string, sha: string, dates: CommitDates): void;
  missingCommit(owner: string, repo: string, sha: string): void;
  commitReads(): SimRecord[];
  writes(): SimRecord[];
  inject(fault: Fault): void;
}

export interface CommitTimesRig {
  sim: CommitSimulator;
  commits: CommitTimesPort;
  owner: string;
  repo: string;
}

/** Runs the cases on a started rig; returns the reads for the forge's own checks (their query, their credentials). */
export async function commitTimesCases(t: Test, { sim, commits, owner, repo }: CommitTimesRig): Promise<SimRecord[]> {
  const [held, missing, failing] = ['a', 'b', 'c'].map((c) => c.repeat(40)) as [string, string, string];
  sim.commit(owner, repo, held, { committedAt: '2026-11-30T10:00:00+02:00', authoredAt: '2026-11-29T00:00:00Z' });
  t.equal(await commits.committedAt(owner, repo, held), Date.parse('2026-11-30T08:00:00Z'), 'the committer date, in ms');
  sim.missingCommit(owner, repo, missing);
  t.equal(await commits.committedAt(owner, repo, missing), null, 'a commit the forge does not hold');
  sim.inject({ path: `/commits/${failing}`, status: 503, times: Infinity });
  const failed = await commits.committedAt(owner, repo, failing).catch((err: unknown) => err);
  t.ok(failed instanceof Error, 'a 503 throws, not null');
  t.match(failed, { status: 503 });
  t.equal(sim.commitReads().length, 3, 'one read per call');
  t.same(sim.writes(), [], 'reads are not writes');
  t.same(sim.violations, [], "every request and answer matched the forge's description");
  return sim.commitReads();
}
