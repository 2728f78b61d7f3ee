import t from 'tap';
import { isTransient, matchesPattern } from '../../src/metadata/patterns.js';

t.test('matchesPattern', (t) => {
  const rows: Array<[pattern: string, value: string, want: boolean]> = [
    ['pr-*', 'pr-42', true],
    ['pr-*', 'pr-', true],
    ['pr-*', 'pr', false],
    ['pr-*', 'xpr-42', false],
    ['pr-*', 'PR-42', false],
    ['*-preview', 'shop-preview', true],
    ['*-preview', 'shop-preview-2', false],
    ['preview-*-eu', 'preview-42-eu', true],
    ['preview-*-eu', 'preview-eu', false],
    ['preview-*-eu', 'preview--eu', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'acb', false],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['*', '', true],
    ['*', 'anything', true],
    ['**', 'x', true],
    ['staging', 'staging', true],
    ['staging', 'staging-2', false],
    ['', '', true],
    ['', 'x', false],
    ['pr.*', 'pr-1', false],
    ['pr.*', 'pr.1', true],
    ['pr-?', 'pr-1', false],
    ['pr-[0-9]', 'pr-1', false],
  ];
  for (const [pattern, value, want] of rows) t.equal(matchesPattern(pattern, value), want, `${pattern} ~ "${value}"`);
  t.end();
});

t.test('isTransient', (t) => {
  const patterns = ['pr-*', 'preview-*'];
  const rows: Array<[name: string, annotations: Record<string, string>, env: string, want: boolean]> = [
    ['annotation true', { transient: 'true' }, 'staging', true],
    ['annotation True, spaced', { transient: ' True ' }, 'staging', true],
    ['annotation yes', { transient: 'yes' }, 'staging', true],
    ['pattern match', {}, 'pr-42', true],
    ['second pattern', {}, 'preview-shop', true],
    ['no match', {}, 'production', false],
    ['annotation false wins over the pattern', { transient: 'false' }, 'pr-42', false],
    ['unrecognised annotation value falls back to the patterns', { transient: 'maybe' }, 'pr-42', true],
    ['unrecognised annotation value, no match', { transient: 'maybe' }, 'staging', false],
    ['other annotations do not matter', { 'auto-report': 'true' }, 'staging', false],
  ];
  for (const [name, a, env, want] of rows) t.equal(isTransient(a, env, patterns), want, name);
  t.equal(isTransient({}, 'pr-42', []), false, 'no patterns configured');
  t.end();
});
