/**
 * Environment name patterns (`TRANSIENT_ENVIRONMENTS=pr-*,preview-*`): `*` matches any run of
 * characters (including none); everything else matches itself. Case-sensitive, whole value.
 */
export function matchesPattern(pattern: string, value: string): boolean {
  const head = pattern.indexOf('*');
  if (head < 0) return value === pattern;
  const tail = pattern.lastIndexOf('*');
  const first = pattern.slice(0, head);
  const last = pattern.slice(tail + 1);
  if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  // The middle literals, in order, leftmost first, between the anchored head and tail.
  let at = first.length;
  const end = value.length - last.length;
  for (const part of head === tail ? [] : pattern.slice(head + 1, tail).split('*')) {
    const i = value.indexOf(part, at);
    if (i < 0 || i + part.length > end) return false;
    at = i + part.length;
  }
  return true;
}

/**
 * Whether deployments to `environment` are `transient_environment` (previews, pull requests).
 * The bridge annotation `transient` decides when set ("true"/"yes"/"1" or "false"/"no"/"0");
 * otherwise an environment matching one of the `TRANSIENT_ENVIRONMENTS` patterns is transient.
 * `annotations` are the bridge's own, prefix removed (`bridgeAnnotations`).
 */
export function isTransient(annotations: Record<string, string>, environment: string, patterns: readonly string[]): boolean {
  const set = annotations.transient?.trim().toLowerCase();
  if (set === 'true' || set === 'yes' || set === '1') return true;
  if (set === 'false' || set === 'no' || set === '0') return false;
  return patterns.some((p) => matchesPattern(p, environment));
}
