/**
 * Bounds on text the bridge did not write (annotations, image labels, descriptions), so one
 * workload cannot make logs, `/state` or a forge request as large as it likes.
 */

/** Longest annotation or image label value kept, in characters; longer ones are cut where they are read. */
export const MAX_VALUE_CHARS = 1000;
/** Characters of an untrusted value quoted in a skip reason or warning. */
const QUOTED_CHARS = 80;

/**
 * `text` on one line, at most `maxChars` code points (never splitting a surrogate pair), ending
 * in `…` when it was cut.
 */
export function oneLine(text: string, maxChars: number): string {
  return cut(text.replace(/\s+/g, ' ').trim(), maxChars);
}

/** `text` cut to `maxChars` code points, ending in `…` when it was longer. */
function cut(text: string, maxChars: number): string {
  // Cheap for the usual short value: only a string longer than the cap in UTF-16 units can be over it.
  if (text.length <= maxChars) return text;
  const chars = Array.from(text.slice(0, maxChars * 2));
  return chars.length <= maxChars && text.length <= maxChars * 2 ? text : `${chars.slice(0, maxChars - 1).join('')}…`;
}

/** An annotation or label value as kept: at most MAX_VALUE_CHARS, ending in `…` when it was cut. */
export function boundedValue(value: string): string {
  return cut(value, MAX_VALUE_CHARS);
}

/** Every value of a record bounded (boundedValue). */
export function boundedValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, boundedValue(v)]));
}

/** Whether a kept value was cut (it was longer than MAX_VALUE_CHARS where it was read). */
export function wasCut(value: string): boolean {
  return Array.from(value).length >= MAX_VALUE_CHARS && value.endsWith('…');
}

/** A value for a message: quoted, only its first characters when long, with its length. */
export function quoted(value: string): string {
  const chars = Array.from(value);
  return chars.length <= QUOTED_CHARS
    ? JSON.stringify(value)
    : `${JSON.stringify(`${chars.slice(0, QUOTED_CHARS).join('')}…`)} (${chars.length} characters)`;
}

/**
 * Orders two texts by their UTF-16 code units, the same on every machine. Not `localeCompare`: its first call loads
 * ICU's collation data, about 3 MiB of a process's memory kept for the process's life (BENCHMARKS.md §5).
 */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
