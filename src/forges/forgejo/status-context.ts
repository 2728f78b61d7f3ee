/**
 * The commit-status context: the name under which a pull request lists the bridge's check. One
 * stable context per (environment, deployment name, cluster), so a newer status replaces ours and
 * never another cluster's. The default, `deploy/{environment}/{deploymentName} ({cluster})`, reads
 * `deploy/preview-pr-42 (eu-1)`, or `deploy/production/shop-api (eu-1)` for a workload annotated
 * `deployment-name: shop-api`; a branch-protection pattern `deploy/production*` covers every cluster.
 *
 * Rules of a template (`parseContextTemplate`):
 * - `{environment}`, `{deploymentName}` and `{cluster}` each appear exactly once; no other `{…}`, no `%`;
 * - two placeholders are always parted by at least one separator (a character that is not a letter
 *   or digit), and `{deploymentName}` touches one: without a `deployment-name` annotation it is left
 *   out together with that separator (the one before it, else the one after it);
 * - in the values, `%`, control characters, the first separator after each placeholder but the last,
 *   and the separator left out with the name are percent-encoded (`/` and space in the default:
 *   `a/b` renders `a%2Fb`), so no two (environment, name, cluster) ever render the same context.
 * A context longer than MAX_CONTEXT_CHARS keeps its head and ends with a hash of the whole, so it
 * stays unique. Changing the template (or this code) starts new contexts: old statuses stay as they were.
 */
import { createHash } from 'node:crypto';

/** Used when no template is configured. */
export const DEFAULT_CONTEXT_TEMPLATE = 'deploy/{environment}/{deploymentName} ({cluster})';
/**
 * Longest context sent, in code points. Forgejo stores the context as TEXT (checked in
 * `models/git/commit_status.go`; it indexes a SHA-1 of it), so this is the bridge's own bound, for a
 * readable check name that fits a VARCHAR(255) should a fork ever use one.
 */
export const MAX_CONTEXT_CHARS = 255;
/** Hex digits of the hash that ends a shortened context. */
const HASH_CHARS = 8;

type Placeholder = 'environment' | 'deploymentName' | 'cluster';
const PLACEHOLDERS: readonly Placeholder[] = ['environment', 'deploymentName', 'cluster'];

/** A validated template (from `parseContextTemplate`). */
export interface ContextTemplate {
  readonly source: string;
  /** Literal text and placeholders, in order. */
  readonly parts: ReadonlyArray<{ text: string } | { name: Placeholder }>;
  /** Characters encoded in values: `%`, the separator after each placeholder but the last, the one left out with the name. */
  readonly reserved: ReadonlySet<string>;
}

/** What one context is for. */
export interface ContextInput {
  environment: string;
  /** The `deployment-name` annotation, when the workload has one (not the repository-name default). */
  deploymentName?: string | undefined;
  cluster: string;
}

const isSeparator = (ch: string | undefined): boolean => ch !== undefined && !/[\p{L}\p{N}]/u.test(ch);
const textAt = (p: { text: string } | { name: Placeholder } | undefined): string | undefined =>
  p !== undefined && 'text' in p ? p.text : undefined;

/** Checks a template against the rules above; the problem says what to change. */
export function parseContextTemplate(source: string): ContextTemplate | { problem: string } {
  const template = source.trim();
  const parts: Array<{ text: string } | { name: Placeholder }> = [];
  const bad = (why: string) => ({ problem: `status context template "${template}" ${why}` });
  let last = 0;
  for (const m of template.matchAll(/\{([^{}]*)\}/g)) {
    if (m.index > last) parts.push({ text: template.slice(last, m.index) });
    const name = m[1] as Placeholder;
    if (!PLACEHOLDERS.includes(name))
      return bad(`has an unknown placeholder {${m[1] ?? ''}}: use {environment}, {deploymentName}, {cluster}`);
    parts.push({ name });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push({ text: template.slice(last) });
  const texts = parts.flatMap((p) => ('text' in p ? [p.text] : []));
  if (texts.some((t) => /[{}]/.test(t))) return bad('has a brace outside a placeholder');
  if (texts.some((t) => t.includes('%'))) return bad('must not contain "%" (values are percent-encoded)');
  for (const name of PLACEHOLDERS) {
    const n = parts.filter((p) => 'name' in p && p.name === name).length;
    if (n !== 1) return bad(`must contain {${name}} exactly once${name === 'deploymentName' ? ' (it is left out when unset)' : ''}`);
  }
  const reserved = new Set(['%']);
  for (const [i, p] of parts.entries()) {
    if (!('name' in p)) continue;
    const before = Array.from(textAt(parts[i - 1]) ?? '');
    const after = Array.from(textAt(parts[i + 1]) ?? '');
    const parting = after.find(isSeparator);
    if (parts.slice(i + 1).some((q) => 'name' in q)) {
      if (parting === undefined)
        return bad(`must part {${p.name}} from the next placeholder with a separator (a character that is not a letter or digit)`);
      reserved.add(parting);
    }
    if (p.name !== 'deploymentName') continue;
    const left = isSeparator(before.at(-1)) ? before.at(-1) : isSeparator(after[0]) ? after[0] : undefined;
    if (left === undefined) return bad('must have a separator right before or after {deploymentName}');
    reserved.add(left);
  }
  return { source: template, parts, reserved };
}

/** Percent-encodes the characters a value must not hold (UTF-8 bytes, like encodeURIComponent). */
function encodeValue(value: string, reserved: ReadonlySet<string>): string {
  return Array.from(value.trim(), (ch) =>
    reserved.has(ch) || /\p{Cc}/u.test(ch)
      ? Array.from(Buffer.from(ch, 'utf8'), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')
      : ch,
  ).join('');
}

/** The context for one (environment, deployment name, cluster). Throws on an empty environment or cluster. */
export function statusContext(template: ContextTemplate, input: ContextInput): string {
  if (input.environment.trim() === '' || input.cluster.trim() === '')
    throw new Error('a status context needs an environment and a cluster');
  const named = (input.deploymentName ?? '').trim() !== '';
  let out = '';
  let dropNext = false;
  for (const p of template.parts) {
    if ('text' in p) {
      out += dropNext ? Array.from(p.text).slice(1).join('') : p.text;
      dropNext = false;
    } else if (p.name === 'deploymentName' && !named) {
      const chars = Array.from(out);
      if (isSeparator(chars.at(-1))) out = chars.slice(0, -1).join('');
      else dropNext = true;
    } else {
      out += encodeValue(input[p.name] ?? '', template.reserved);
    }
  }
  return shorten(out.trim());
}

/** Keeps a context within MAX_CONTEXT_CHARS code points: its head, `~`, and a hash of the whole. */
function shorten(context: string): string {
  const chars = Array.from(context);
  if (chars.length <= MAX_CONTEXT_CHARS) return context;
  const hash = createHash('sha256').update(context).digest('hex').slice(0, HASH_CHARS);
  return `${chars.slice(0, MAX_CONTEXT_CHARS - HASH_CHARS - 1).join('')}~${hash}`;
}
