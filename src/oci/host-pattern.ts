/**
 * Registry host patterns (pure): `host[:port]` where `*` matches a run of characters inside one
 * DNS label, so a match has as many labels as the pattern (the kubelet's and containerd's rule for
 * credential keys, and the rule of `REGISTRY_ALLOWED_HOSTS`). Matched label by label without a
 * regular expression: a pattern with many stars against a long label must not backtrack.
 */

/** Whether `host` (lowercase `name[:port]`) matches `pattern`; a port must be the same on both sides. */
export function hostPatternMatches(pattern: string, host: string): boolean {
  if (pattern === host) return true;
  const [pName, pPort] = splitPort(pattern);
  const [hName, hPort] = splitPort(host);
  return pPort === hPort && nameMatches(pName, hName);
}

/** `host[:port]` as name and port ('' when there is none). */
function splitPort(host: string): [string, string] {
  const colon = host.lastIndexOf(':');
  const port = host.slice(colon + 1);
  return colon >= 0 && /^\d+$/.test(port) ? [host.slice(0, colon), port] : [host, ''];
}

function nameMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const patternLabels = pattern.split('.');
  const nameLabels = name.split('.');
  return patternLabels.length === nameLabels.length && patternLabels.every((p, i) => labelMatches(p, nameLabels[i] ?? ''));
}

/**
 * One label against a pattern whose only special character is `*` (any run, possibly empty): the
 * part before the first star is a prefix, the part after the last a suffix, and the parts between
 * are found left to right, each at its first place after the one before (taking the earliest place
 * never loses a match). Each part is searched once: time grows with the label, not with the stars.
 */
function labelMatches(pattern: string, label: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  if (parts.length === 1) return first === label;
  const last = parts[parts.length - 1] ?? '';
  if (first.length + last.length > label.length || !label.startsWith(first) || !label.endsWith(last)) return false;
  let at = first.length;
  const end = label.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = label.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
