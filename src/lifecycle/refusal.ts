/**
 * Refusals in forge-neutral words: an answer of a forge that retrying soon will not change (a repository
 * it does not know or lets no one write, a commit it refuses), what a person should do about it, and
 * when to try again. Each forge sorts its own failures into these (`<forge>RefusalOf`); the refusal guard
 * keeps them (`forge_refusals`) so neither the resync nor a restart repeats the request before then.
 */
import { identityKey, type Identity } from './identity.js';

/** A refusal is tried again after this long (persisted): a resync every few minutes must not repeat it. */
export const REFUSAL_RETRY_MS = 60 * 60_000;

/** Low-cardinality class of a refusal, for /state and metrics: `<forge>_<kind>`, e.g. `github_not_installed`, `forgejo_forbidden`. */
export type RefusalCode = `${string}_${string}`;

/** A forge's answer that will not change by retrying soon, and what a person should do about it. */
export interface Refusal {
  /** The forge that refused (the `forge` column and label). */
  forge: string;
  /** What it blocks: `repo:<forge>:<owner>/<repo>` (every deployment in it) or `deployment:<identity>` (`refusalKeys`). */
  key: string;
  code: RefusalCode;
  reason: string;
  status: number | null;
  retryAt: number;
}

/** The deployment a refusal is about. */
export type RefusalTarget = Identity;

/** The keys a target's refusals are kept under: its repository, and its own deployment identity; the forge's name leads both. */
export function refusalKeys(t: RefusalTarget): { repo: string; deployment: string } {
  return { repo: `repo:${t.forge}:${t.owner}/${t.repo}`.toLowerCase(), deployment: `deployment:${identityKey(t)}` };
}
