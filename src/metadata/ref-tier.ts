/**
 * Two fields of a report target a forge may use beside the commit: the ref (branch or tag) the
 * commit was built from, and the environment's tier. Pure.
 *
 * The ref comes from the workload's `github-deployment-bridge.io/ref` annotation, else from the Flux
 * object's `event.toolkit.fluxcd.io/branch` annotation (Flux Operator's previews set it to the pull
 * request's branch); a forge that needs one and has neither asks its own API. The tier is
 * `production` for a production environment, else the `tier` annotation. A value that is not a valid
 * git ref name, or not one of the five tiers, is dropped with a warning (never guessed, never blocking).
 */
import { quoted } from '../common/text.js';

/** The workload annotation naming the ref (after the bridge's prefix). */
export const REF_KEY = 'ref';
/** The workload annotation naming the tier (after the bridge's prefix). */
export const TIER_KEY = 'tier';
/** The Flux object annotation Flux Operator's previews set to the pull request's branch. */
export const FLUX_BRANCH_ANNOTATION = 'event.toolkit.fluxcd.io/branch';

/** Environment tiers (GitLab's five; other forges ignore the field). */
export const TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const;
export type Tier = (typeof TIERS)[number];

/** Longest ref kept, in characters (a branch name longer than this is not one a forge stores). */
export const MAX_REF_CHARS = 255;

/** The ref a target was built from, and where the bridge read it. */
export interface TargetRef {
  /** The short name: `main`, `feature/x`, `v1.2.0`. */
  ref: string;
  /** True for a tag (`refs/tags/…`). */
  tag: boolean;
  from: 'annotation' | 'flux';
}

/** A character that does not print, as its code point (`U+000A`). */
const charCode = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `name` is not a valid git ref name (`git check-ref-format` rules), or undefined when it is. */
export function gitRefProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name.length > MAX_REF_CHARS) return `is longer than ${MAX_REF_CHARS} characters`;
  if (name === '@') return 'is "@"';
  // Control characters (and DEL), space, ~ ^ : ? * [ \ are never allowed in a ref.
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0020\u007f~^:?*[\\]/.exec(name)?.[0];
  if (bad !== undefined) return `has ${bad > ' ' && bad < '\u007f' ? `"${bad}"` : charCode(bad)}, which a git ref cannot hold`;
  if (name.includes('..')) return 'has ".."';
  if (name.includes('@{')) return 'has "@{"';
  if (name.startsWith('-')) return 'starts with "-"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'has an empty path component';
  if (name.endsWith('.')) return 'ends with "."';
  const part = name.split('/').find((p) => p.startsWith('.') || p.endsWith('.lock'));
  if (part !== undefined) return `has a component "${part}" starting with "." or ending in ".lock"`;
  return undefined;
}

/** `refs/heads/x` → branch x, `refs/tags/v1` → tag v1, anything else a branch as written; a problem when not a ref name. */
export function parseRef(value: string): { ref: string; tag: boolean } | { problem: string } {
  const v = value.trim();
  const tag = /^refs\/tags\/(.+)$/.exec(v)?.[1];
  const ref = tag ?? v.replace(/^refs\/heads\//, '');
  const problem = gitRefProblem(ref);
  return problem === undefined ? { ref, tag: tag !== undefined } : { problem };
}

/**
 * The target's ref: the workload annotation, else the Flux object's branch annotation, else none.
 * An invalid value is dropped with a warning and the next source is tried.
 */
export function targetRef(annotated: string | undefined, fluxBranch: string | undefined): { ref?: TargetRef; warnings: string[] } {
  const warnings: string[] = [];
  const sources: Array<[string | undefined, TargetRef['from'], string]> = [
    [annotated, 'annotation', `github-deployment-bridge.io/${REF_KEY} annotation`],
    [fluxBranch, 'flux', `${FLUX_BRANCH_ANNOTATION} annotation of the Flux object`],
  ];
  for (const [value, from, what] of sources) {
    if (value === undefined || value.trim() === '') continue;
    const parsed = parseRef(value);
    if ('ref' in parsed) return { ref: { ...parsed, from }, warnings };
    warnings.push(`ref dropped: the ${what} ${quoted(value)} ${parsed.problem}`);
  }
  return { warnings };
}

/**
 * The tier: `production` for a production environment, else the `tier` annotation (case-insensitive),
 * else none (a forge's own guess stays). A value outside TIERS is dropped with a warning.
 */
export function targetTier(production: boolean, annotated: string | undefined): { tier?: Tier; warning?: string } {
  if (production) return { tier: 'production' };
  const v = annotated?.trim().toLowerCase();
  if (v === undefined || v === '') return {};
  if ((TIERS as readonly string[]).includes(v)) return { tier: v as Tier };
  return { warning: `tier dropped: github-deployment-bridge.io/${TIER_KEY} ${quoted(annotated ?? '')} is not one of ${TIERS.join(', ')}` };
}
