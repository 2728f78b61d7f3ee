/** The value types settings are declared with; each records its problem as `NAME="text" must be …`. */
import type { Parse } from './settings-schema.js';

/** Text as given (trimmed). */
export const text: Parse<string> = (value) => value;

/** A comma list; blanks dropped. */
export const list: Parse<string[]> = (value) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const TRUE = ['true', '1', 'yes'];
const FALSE = ['false', '0', 'no'];

/** Whether a set value reads as true (as `boolean` reads it); an unset or unreadable one is not. */
export const isTrue = (value: string | undefined): boolean => value !== undefined && TRUE.includes(value.toLowerCase());

/** `true`/`false`, `1`/`0`, `yes`/`no`, any case. */
export const boolean: Parse<boolean> = (value, check) => {
  const v = value.toLowerCase();
  if (TRUE.includes(v)) return true;
  return FALSE.includes(v) ? false : check.invalid('must be true or false');
};

/** A whole number (digits only) from `min` to `max`; `expect` words what it must be. */
export function integer(min: number, max: number, expect = `a whole number from ${min} to ${max}`): Parse<number> {
  return (value, check) => {
    const n = Number(value);
    return /^\d+$/.test(value) && n >= min && n <= max ? n : check.invalid(`must be ${expect}`);
  };
}

/** One of `values` (two read `a or b`); `ignoreCase` accepts any case and yields the declared one. */
export function oneOf<const V extends string>(values: readonly V[], { ignoreCase = false } = {}): Parse<V> {
  const expect = values.length === 2 ? values.join(' or ') : `one of ${values.join(', ')}`;
  return (value, check) => {
    const wanted = ignoreCase ? value.toLowerCase() : value;
    return values.find((v) => v === wanted) ?? check.invalid(`must be ${expect}`);
  };
}

/**
 * An absolute URL with one of `protocols` (`https:`); `{placeholders}` of URL templates are checked as plain
 * text. `stripSlashes` drops trailing slashes (API bases).
 */
export function url(protocols: readonly string[], { stripSlashes = false } = {}): Parse<string> {
  return (value, check) => {
    const v = stripSlashes ? value.replace(/\/+$/, '') : value;
    const filled = v.replace(/\{[a-zA-Z]+\}/g, 'x');
    if (!URL.canParse(filled)) return check.invalid('is not an absolute URL');
    return protocols.includes(new URL(filled).protocol) ? v : check.invalid(`must be an ${protocols.join(' or ')} URL`);
  };
}

/** A duration in milliseconds, from `minMs` to `maxMs`; `expect` words what it must be. */
export function duration(expect: string, bounds: { allowZero?: boolean; minMs?: number; maxMs?: number } = {}): Parse<number> {
  return (value, check) => {
    const ms = parseDuration(value, bounds);
    const inBounds = ms !== undefined && ms >= (bounds.minMs ?? 0) && ms <= (bounds.maxMs ?? Infinity);
    return inBounds ? ms : check.invalid(`must be ${expect}`);
  };
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses `30s`, `5m`, `1h`, `250ms` or plain seconds into milliseconds; zero only with `allowZero`. */
export function parseDuration(value: string, { allowZero = false } = {}): number | undefined {
  const [, amount, unit = 's'] = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim()) ?? [];
  const perUnit = UNIT_MS[unit];
  if (amount === undefined || perUnit === undefined) return undefined;
  const ms = Number(amount) * perUnit;
  return ms > 0 || (allowZero && ms === 0) ? ms : undefined;
}
